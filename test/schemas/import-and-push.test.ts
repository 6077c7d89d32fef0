import { describe, expect, it } from 'vitest';
import {
  importRequestSchema,
  importResultSchema,
  memberErrorSchema,
  platformSchema,
  problemSchema,
  skippedEntrySchema,
  subscriptionRequestSchema,
} from '../../src/schemas/index.js';

const item = { memberId: 'm-1', isActive: true, createdAt: '2024-05-01T12:00:00Z' };

describe('import request and result', () => {
  it('needs at least one item, each valid', () => {
    expect(importRequestSchema.safeParse([]).success).toBe(false);
    expect(importRequestSchema.safeParse([item]).success).toBe(true);
    expect(importRequestSchema.safeParse([item, { ...item, isActive: 'yes' }]).success).toBe(false);
    expect(importRequestSchema.safeParse(item).success).toBe(false);
  });

  it('result is strict: int32 counts, nullable skipped of strict entries', () => {
    expect(importResultSchema.safeParse({ importedCount: 1, updatedCount: 0, skipped: null }).success).toBe(true);
    expect(
      importResultSchema.safeParse({ importedCount: 1, updatedCount: 0, skipped: [{ memberId: null, reason: null }] })
        .success,
    ).toBe(true);
    expect(importResultSchema.safeParse({ importedCount: 1, updatedCount: 0, skipped: [], extra: 1 }).success).toBe(
      false,
    );
    expect(importResultSchema.safeParse({ importedCount: 1.5, updatedCount: 0, skipped: [] }).success).toBe(false);
    expect(importResultSchema.safeParse({ importedCount: 2 ** 31, updatedCount: 0, skipped: [] }).success).toBe(false);
    expect(importResultSchema.safeParse({ importedCount: 2 ** 31 - 1, updatedCount: 0, skipped: [] }).success).toBe(
      true,
    );
    expect(importResultSchema.safeParse({ importedCount: 1, updatedCount: 0 }).success).toBe(false);
    expect(skippedEntrySchema.safeParse({ memberId: 'a', reason: 'x', why: 1 }).success).toBe(false);
    expect(skippedEntrySchema.safeParse({ memberId: 'a', reason: 'dup' }).success).toBe(true);
  });

  it('error object: name and message non-empty, details any JSON or null', () => {
    expect(memberErrorSchema.safeParse({ name: 'ValidationError', message: 'bad' }).success).toBe(true);
    expect(memberErrorSchema.safeParse({ name: 'E', message: 'm', details: { errors: [1] } }).success).toBe(true);
    expect(memberErrorSchema.safeParse({ name: 'E', message: 'm', details: null }).success).toBe(true);
    expect(memberErrorSchema.safeParse({ name: '', message: 'm' }).success).toBe(false);
    expect(memberErrorSchema.safeParse({ name: 'E', message: '' }).success).toBe(false);
    expect(memberErrorSchema.safeParse({ name: 'E' }).success).toBe(false);
  });
});

describe('push contracts', () => {
  const sub = { tokenHandle: 't', platform: 'Apns', installationId: 'i' };
  it('platform is one of Apns, Fcm, FcmV1, Hms (exact spelling)', () => {
    for (const p of ['Apns', 'Fcm', 'FcmV1', 'Hms']) expect(platformSchema.safeParse(p).success, p).toBe(true);
    for (const p of ['apns', 'APNS', 'Gcm', '', 'FcmV1 ']) expect(platformSchema.safeParse(p).success, p).toBe(false);
  });

  it('tokenHandle 1..255 and installationId 1..50', () => {
    expect(subscriptionRequestSchema.safeParse(sub).success).toBe(true);
    expect(subscriptionRequestSchema.safeParse({ ...sub, tokenHandle: 'x'.repeat(255) }).success).toBe(true);
    expect(subscriptionRequestSchema.safeParse({ ...sub, tokenHandle: 'x'.repeat(256) }).success).toBe(false);
    expect(subscriptionRequestSchema.safeParse({ ...sub, tokenHandle: '' }).success).toBe(false);
    expect(subscriptionRequestSchema.safeParse({ ...sub, installationId: 'x'.repeat(50) }).success).toBe(true);
    expect(subscriptionRequestSchema.safeParse({ ...sub, installationId: 'x'.repeat(51) }).success).toBe(false);
    expect(subscriptionRequestSchema.safeParse({ ...sub, installationId: '' }).success).toBe(false);
    expect(subscriptionRequestSchema.safeParse({ tokenHandle: 't', platform: 'Apns' }).success).toBe(false);
  });

  it('problem object: the five RFC 7807 fields, typed', () => {
    const problem = { type: 'about:blank', title: 'Bad Request', status: 400, detail: 'x', instance: '/push/v1/...' };
    expect(problemSchema.safeParse(problem).success).toBe(true);
    expect(problemSchema.safeParse({}).success).toBe(true);
    expect(problemSchema.safeParse({ status: '400' }).success).toBe(false);
    expect(problemSchema.safeParse({ status: 400.5 }).success).toBe(false);
    expect(problemSchema.safeParse({ title: 5 }).success).toBe(false);
  });
});
