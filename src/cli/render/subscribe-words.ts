/**
 * The words `subscribe --help` and its errors use for the platforms and the --from keys, in a module that loads no
 * schema: the help is built from them before any command runs.
 */
import { BLOB_KEYS, type DeviceField } from '../../core/subscribe/blob-keys.js';
import { aliasesOf } from '../../core/subscribe/platforms.js';
import { PLATFORM_NAMES } from '../../schemas/platforms.js';

export function platformEntries(): string[] {
  const order = [...PLATFORM_NAMES.filter((name) => name !== 'Fcm'), 'Fcm' as const];
  return order.map((name) =>
    name === 'Fcm' ? 'Fcm (legacy Android, deprecated)' : `${name} (${aliasesOf(name).join(', ')})`,
  );
}

export const PLATFORM_SPELLING = 'any case, with - or _ (fcm-v1, FCM_V1)';

export function platformList(): string {
  return `${platformEntries().join(', ')}; ${PLATFORM_SPELLING}`;
}

/** The keys looked for, as documented ("installationId, installId, appInstallationId or deviceId"). */
export function keysLookedFor(field: DeviceField): string {
  const names = [...BLOB_KEYS[field].keys, ...BLOB_KEYS[field].fallback];
  return `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}
