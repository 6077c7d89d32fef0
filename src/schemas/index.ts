export * from './member.js';
export * from './push.js';
