/**
 * `config check`: is this machine ready to import? Resolves the settings, reads the tokens (never showing them),
 * reaches the server layer by layer, optionally proves the credentials with a request that cannot write, and
 * ends with a verdict and a result category (an exit code a script can test).
 */
import { type ResultCategory, isMemberctlError } from '../../errors.js';
import { checkTokenCharacters, parseBaseUrl, readTokenFile } from '../connection.js';
import { decodeJwtClaims, expiryState, humanDuration } from './jwt-claims.js';
import { probeImportEndpoint, probeReachability } from '../../http/reachability.js';
import { describeProvenance, type ResolvedSettings, type TokenArea } from '../settings/index.js';

export type CheckStatus = 'ok' | 'warn' | 'fail';
/** What a failure is about decides the result category (and so the exit code): usage, not confirmed, credentials. */
export type CheckTopic = 'config' | 'network' | 'credentials';

export interface CheckLine {
  topic: CheckTopic;
  status: CheckStatus;
  message: string;
}

export interface ConfigCheckResult {
  checks: CheckLine[];
  verdict: 'ready' | 'ready-with-warnings' | 'not-ready';
  category: ResultCategory;
  /** One line for humans, e.g. "not ready: the member token expired 3 days ago". */
  summary: string;
  /** When not ready: what to do about the failure the summary names (a cron alert carries both). */
  next?: string;
}

export interface ConfigCheckOptions {
  settings: ResolvedSettings;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** POST [] to the import endpoint with the member token (default on; it cannot write). */
  probe: boolean;
  now?: Date;
}

export async function checkConfiguration(options: ConfigCheckOptions): Promise<ConfigCheckResult> {
  const { settings, env } = options;
  const checks: CheckLine[] = [];
  const add = (topic: CheckTopic, status: CheckStatus, message: string) => checks.push({ topic, status, message });

  const profile = settings.profile
    ? `, profile ${settings.profile.value} (from ${describeProvenance(settings.profile.source)})`
    : '';
  add(
    'config',
    'ok',
    settings.configFile
      ? `config file ${settings.configFile}${profile}`
      : 'no config file: using flags, environment and defaults',
  );

  let baseUrl: URL | undefined;
  const rawUrl = settings.values.baseUrl.value;
  if (!rawUrl)
    add('config', 'fail', 'no base URL: set MEMBERCTL_BASE_URL, pass --base-url or set baseUrl in a profile');
  else {
    try {
      baseUrl = parseBaseUrl(rawUrl, settings.values.allowInsecureHttp.value);
      add('config', 'ok', `base URL ${baseUrl.href} (from ${describeProvenance(settings.values.baseUrl.source)})`);
    } catch (error) {
      add(
        'config',
        'fail',
        isMemberctlError(error) ? `${error.message}${error.hint ? ` (${error.hint})` : ''}` : String(error),
      );
    }
  }

  const memberToken = await checkToken('member', settings, env, add, options.now ?? new Date());
  await checkToken('push', settings, env, add, options.now ?? new Date());
  if (!settings.tokens.member && !settings.tokens.push) {
    add(
      'credentials',
      'fail',
      'no token at all: set MEMBERCTL_TOKEN / MEMBERCTL_PUSH_TOKEN, --token-file or tokenFile in a profile',
    );
  }

  if (baseUrl) {
    const steps = await probeReachability(baseUrl, options.timeoutMs);
    for (const step of steps) add('network', step.ok ? 'ok' : 'fail', step.message);
    const reachable = steps.every((step) => step.ok);
    if (reachable && memberToken && options.probe) await probeCredentials(baseUrl, memberToken, options.timeoutMs, add);
  }
  return verdict(checks, settings.profile?.value);
}

type Add = (topic: CheckTopic, status: CheckStatus, message: string) => void;

/** Reads and inspects one area's token; returns it (member only, for the probe) when usable. */
async function checkToken(area: TokenArea, settings: ResolvedSettings, env: NodeJS.ProcessEnv, add: Add, now: Date) {
  const ref = settings.tokens[area];
  const label = `${area} token`;
  const blocks = area === 'member' ? 'import' : 'subscribe';
  if (!ref) {
    add('credentials', 'warn', `${label} not set: \`memberctl ${blocks}\` will not run`);
    return undefined;
  }
  let token: string;
  if (ref.value.from === 'env') {
    token = env[ref.value.variable]?.trim() ?? '';
    add('credentials', 'ok', `${label} set (from ${ref.value.variable})`);
  } else {
    try {
      const read = await readTokenFile(ref.value.path);
      token = read.token;
      add('credentials', 'ok', `${label} set (from token file ${ref.value.path}, ${describeProvenance(ref.source)})`);
      for (const warning of read.warnings) add('credentials', 'warn', warning);
    } catch (error) {
      add('credentials', 'fail', `${label}: ${isMemberctlError(error) ? error.message : String(error)}`);
      return undefined;
    }
  }
  try {
    checkTokenCharacters(token, label);
  } catch (error) {
    add('credentials', 'fail', isMemberctlError(error) ? error.message : String(error));
    return undefined;
  }
  if (area === 'push') return undefined; // opaque: nothing more to learn offline
  const claims = decodeJwtClaims(token);
  if (!claims) {
    add('credentials', 'warn', `${label} is not a JWT (the member API expects one): is it the push token?`);
    return token;
  }
  const subject = claims.sub ? ` for subject ${claims.sub}` : '';
  const issued = claims.iat ? `, issued ${new Date(claims.iat * 1000).toISOString()}` : '';
  const expiry = expiryState(claims, now);
  switch (expiry.state) {
    case 'expired':
      add(
        'credentials',
        'fail',
        `${label}${subject} expired ${humanDuration(expiry.agoMs)} ago (${expiry.at.toISOString()}${issued})`,
      );
      return undefined;
    case 'expiring':
      add(
        'credentials',
        'warn',
        `${label}${subject} expires in ${humanDuration(expiry.inMs)} (${expiry.at.toISOString()}): renew it before a long run`,
      );
      break;
    case 'valid':
      add(
        'credentials',
        'ok',
        `${label}${subject} valid until ${expiry.at.toISOString()} (${humanDuration(expiry.inMs)})${issued}`,
      );
      break;
    case 'no-expiry':
      add('credentials', 'ok', `${label}${subject} has no expiry claim${issued}`);
  }
  if (claims.nbf !== undefined && claims.nbf * 1000 > now.getTime()) {
    add('credentials', 'warn', `${label} is not valid before ${new Date(claims.nbf * 1000).toISOString()}`);
  }
  return token;
}

async function probeCredentials(baseUrl: URL, token: string, timeoutMs: number, add: Add): Promise<void> {
  const outcome = await probeImportEndpoint(baseUrl, token, timeoutMs);
  switch (outcome.kind) {
    case 'accepted':
      add(
        'credentials',
        'ok',
        `member token accepted by the import endpoint (HTTP ${outcome.status} to an empty batch; nothing written)`,
      );
      return;
    case 'refused':
      add(
        'credentials',
        'fail',
        `member token refused by the server (HTTP ${outcome.status}): expired, for another environment, or lacking permission`,
      );
      return;
    case 'not-found':
      add(
        'config',
        'fail',
        `no import endpoint under ${baseUrl.href} (HTTP ${outcome.status}): check the base URL's path prefix`,
      );
      return;
    case 'server-error':
      add('network', 'warn', `the import endpoint answered HTTP ${outcome.status}: the server may be unwell`);
      return;
    case 'unexpected':
      add('network', 'warn', `the import endpoint answered HTTP ${outcome.status} to an empty batch (expected 400)`);
      return;
    case 'network':
      add('network', 'fail', `the import endpoint did not answer (${outcome.message})`);
  }
}

const CATEGORY_BY_TOPIC: Record<CheckTopic, ResultCategory> = {
  config: 'usage',
  network: 'not-confirmed',
  credentials: 'credentials',
};

/** The next step for the first failing layer; it ends with the command that proves the fix. */
function nextStep(topic: CheckTopic, profile: string | undefined): string {
  const again = `then run \`memberctl config check${profile ? ` --profile ${profile}` : ''}\` again`;
  switch (topic) {
    case 'config':
      return `fix the setting named above (\`memberctl config show\` says where each value comes from), ${again}`;
    case 'network':
      return `nothing can be sent from this machine until the server answers: check the base URL, DNS, the firewall or proxy, and that the server is up; ${again}`;
    case 'credentials':
      return `put a valid member token where the settings read it (the profile's tokenFile, mode 600, or MEMBERCTL_TOKEN), ${again}`;
  }
}

function verdict(checks: CheckLine[], profile: string | undefined): ConfigCheckResult {
  // The first layer that fails is the one to fix first: config, then network, then credentials.
  for (const topic of ['config', 'network', 'credentials'] as const) {
    const failure = checks.find((check) => check.topic === topic && check.status === 'fail');
    if (failure)
      return {
        checks,
        verdict: 'not-ready',
        category: CATEGORY_BY_TOPIC[topic],
        summary: `not ready: ${failure.message}`,
        next: nextStep(topic, profile),
      };
  }
  const warnings = checks.filter((check) => check.status === 'warn').length;
  return warnings
    ? {
        checks,
        verdict: 'ready-with-warnings',
        category: 'ok',
        summary: `ready, with ${warnings} warning${warnings === 1 ? '' : 's'}`,
      }
    : { checks, verdict: 'ready', category: 'ok', summary: 'ready' };
}
