/** The keys `subscribe --from` reads for each device value (device-blob.ts reads them; the help lists them). */
export type DeviceField = 'tokenHandle' | 'platform' | 'installationId';
export const DEVICE_FIELDS: readonly DeviceField[] = ['tokenHandle', 'platform', 'installationId'];

/**
 * The keys read for each field, in the spelling documented. `fallback` keys count only when no `keys` key is
 * there: a `deviceId` is often the installation id in test apps, but an app that prints both means two things.
 */
export const BLOB_KEYS: Readonly<Record<DeviceField, { keys: readonly string[]; fallback: readonly string[] }>> = {
  tokenHandle: {
    keys: [
      'tokenHandle',
      'deviceToken',
      'token',
      'pushToken',
      'devicePushToken',
      'pushChannel',
      'registrationId',
      'registrationToken',
      'fcmToken',
      'apnsToken',
      'hmsToken',
      'firebaseToken',
    ],
    fallback: [],
  },
  platform: {
    keys: ['platform', 'os', 'platformName', 'osName', 'devicePlatform', 'pushPlatform', 'deviceType'],
    fallback: [],
  },
  installationId: { keys: ['installationId', 'installId', 'appInstallationId'], fallback: ['deviceId'] },
};
