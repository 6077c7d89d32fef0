export * from './member.js';
export * from './push.js';
export * from './json-depth.js';
