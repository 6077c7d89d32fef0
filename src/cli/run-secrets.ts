/**
 * No token this run knows of ever leaves it in what it writes: stdout, stderr (text or JSON log lines), the
 * --report file and map init's mapping. The run knows the tokens of the environment and of the token files named
 * by its flags or by any profile from its start, and a token it reads later (a FIFO token file, a sandbox's
 * generated tokens) from when it reads it. The run's stdout and stderr are wrapped once (runMemberctl), so no
 * renderer can forget to mask (a token split over two writes is not, so write a line at once); a server's texts were masked already, in every encoded form, by the HTTP adapter.
 */
import { redactor, type Redactor } from '../http/redact.js';
import { firstLineOf, tokensNamedBySettings } from '../core/settings/known-tokens.js';
import { runSecrets, type CliIo, type CliWriteStream } from './io.js';

/** The flags that name a token file, on any command (config check takes both). */
const TOKEN_FILE_FLAGS = ['--token-file', '--push-token-file'];

/** The tokens a run knows before it runs: the environment's, and those of the token files its flags and profiles name. */
export function tokensKnownAtStart(io: Pick<CliIo, 'argv' | 'env'>): string[] {
  const files = io.argv.flatMap((arg, index) => {
    const flag = TOKEN_FILE_FLAGS.find((name) => arg === name || arg.startsWith(`${name}=`));
    if (!flag) return [];
    const path = arg === flag ? io.argv[index + 1] : arg.slice(flag.length + 1);
    return path ? [path] : [];
  });
  return [...tokensNamedBySettings(io.env), ...files.map(firstLineOf).filter((token) => token !== undefined)];
}

/** From now on, `token` is masked in everything this run writes. */
export function knowSecret(token: string | undefined): void {
  if (token) runSecrets().add(token);
}

/**
 * `token` is shown from now on: `memberctl sandbox` prints the sandbox's tokens to be used, and a user who
 * exported last session's sandbox token and passes it again (`--member-token "$MEMBERCTL_TOKEN"`) must see it.
 */
export function showSecret(token: string): void {
  const secrets = runSecrets();
  secrets.delete(token);
  masks.delete(secrets);
}

const masks = new WeakMap<Set<string>, { size: number; mask: Redactor }>();

/** `text` with every token this run knows of masked, in every form (redact.ts). */
export function maskKnownSecrets(text: string, secrets = runSecrets()): string {
  if (secrets.size === 0) return text;
  let cached = masks.get(secrets);
  // tokens are added, or removed with the cache (showSecret): the count says whether the mask is still the set's
  if (cached?.size !== secrets.size)
    masks.set(secrets, (cached = { size: secrets.size, mask: redactor([...secrets]) }));
  return cached.mask(text);
}

/**
 * The stream, with every text written to it masked (everything else, isTTY and columns included, is the
 * stream's own). A Buffer is masked as UTF-8 and passed unchanged when it holds no token.
 */
export function maskedStream<T extends CliWriteStream>(stream: T, secrets: Set<string>): T {
  const write = (chunk: unknown, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : undefined;
    const masked = text === undefined ? text : maskKnownSecrets(text, secrets);
    const out = masked === undefined || masked === text ? chunk : masked;
    return (stream.write as (...args: unknown[]) => boolean)(out, ...rest);
  };
  return new Proxy(stream, {
    get(target, property) {
      if (property === 'write') return write;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
