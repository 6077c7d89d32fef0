/** The push area's contracts, mirrored from the API description (seed 000). Shared by client and sandbox. */
import { z } from 'zod';
import { PLATFORM_NAMES, type Platform } from './platforms.js';

export { PLATFORMS, PLATFORM_NAMES, type Platform } from './platforms.js';

export const platformSchema = z.enum(PLATFORM_NAMES as [Platform, ...Platform[]]);

export const subscriptionRequestSchema = z.object({
  tokenHandle: z.string().min(1).max(255),
  // The API bounds platform at 1-10 chars; the enum already implies it.
  platform: platformSchema,
  installationId: z.string().min(1).max(50),
});

/** RFC 7807 problem details, as the push area answers errors. All fields optional on the wire. */
export const problemSchema = z.object({
  type: z.string().optional(),
  title: z.string().optional(),
  status: z.number().int().optional(),
  detail: z.string().optional(),
  instance: z.string().optional(),
});

export type SubscriptionRequest = z.infer<typeof subscriptionRequestSchema>;
export type ProblemDetails = z.infer<typeof problemSchema>;
