/** The HTTP adapter: undici clients of the member and push APIs, with their retry policy. */
export * from './retry-policy.js';
export { PauseGate } from './pause-gate.js';
export {
  MemberApiClient,
  IMPORT_PATH,
  type MemberApiOptions,
  type ImportResponse,
  type RetryInfo,
} from './member-api.js';
export {
  PushApiClient,
  subscriptionPath,
  formatProblem,
  type PushApiOptions,
  type SubscribeResponse,
} from './push-api.js';
