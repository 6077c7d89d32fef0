// The cases of bench/received-ab.mjs: each a name, its files (copied into a folder of its own), the environment,
// and its steps (memberctl's arguments; `killAfterBodies`: kill -9 once the server got that many bodies;
// `resumed`: what it sends and counts depends on where the run before was killed: only its exit code and the
// members stored are compared).
// `encodes`: B+enc runs it too (the worker parses the CSV and no --rejects keeps the cells).
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Flags worth a case of their own, by input. */
const EXTRA = {
  'short-long.csv': [['--pad-short-rows']],
  'duplicates.csv': [
    ['--duplicates', 'refuse'],
    ['--duplicates', 'off'],
  ],
  'far-duplicates.csv': [['--duplicates', 'refuse']],
  'null-token.csv': [['--null-token', 'NULL'], ['--empty-as-null']],
  'windows-1252.csv': [['--encoding', 'windows-1252']],
  'utf-16le.csv': [['--encoding', 'utf-16le']],
  'mapped.csv': [
    ['--map', 'mapped.mapping.json'],
    ['--map', 'mapped-fields.mapping.json'],
  ],
};

export function receivedAbCases({ inputs, csvNames, root }) {
  const cases = [];
  const add = (name, files, args, env = {}) => {
    const encodes = env.MEMBERCTL_CSV_WORKER === 'always' && !args.includes('--rejects');
    cases.push({ name, files, env, encodes, steps: [{ args: ['import', ...args, '--json'] }] });
  };
  const maps = (dir) => readdirSync(dir).filter((name) => name.endsWith('.mapping.json'));
  for (const name of csvNames) {
    for (const flags of [[], ...(EXTRA[name] ?? [])]) {
      const label = `${name.replace('.csv', '')}${flags.join('')}`;
      const files = [join(inputs, name), ...maps(inputs).map((m) => join(inputs, m))];
      const padded = [join(inputs, 'padded', name), ...maps(inputs).map((m) => join(inputs, 'padded', m))];
      add(`${label}.here`, files, [name, ...flags, '--rejects', 'rejects.ndjson'], { MEMBERCTL_CSV_WORKER: 'never' });
      add(`${label}.worker`, files, [name, ...flags, '--rejects', 'rejects.csv'], { MEMBERCTL_CSV_WORKER: 'always' });
      add(`${label}.worker-norejects`, files, [name, ...flags], { MEMBERCTL_CSV_WORKER: 'always' });
      if (name !== 'header-only.csv')
        add(`padded-${label}.worker-norejects`, padded, [name, ...flags], { MEMBERCTL_CSV_WORKER: 'always' });
    }
  }
  const fixtures = join(root, 'fixtures/exports');
  for (const name of readdirSync(fixtures).filter((n) => /\.(csv|xlsx)$/.test(n))) {
    const map = name.replace(/\.(csv|xlsx)$/, '.mapping.json');
    const files = [join(fixtures, name), join(fixtures, map)];
    add(`fixture-${name}.here`, files, [name, '--map', map, '--rejects', 'rejects.ndjson'], {
      MEMBERCTL_CSV_WORKER: 'never',
    });
    if (name.endsWith('.csv'))
      add(`fixture-${name}.worker-norejects`, files, [name, '--map', map], { MEMBERCTL_CSV_WORKER: 'always' });
  }
  for (const name of ['members.json', 'members.ndjson'])
    add(name, [join(inputs, name)], [name, '--rejects', 'rejects.ndjson']);
  const quoted = join(inputs, 'padded', 'quoted.csv');
  const changed = join(inputs, 'quoted-changed.csv');
  const lines = readFileSync(quoted, 'utf8').split('\n');
  writeFileSync(changed, lines.map((l, i) => (i % 100 === 50 ? l.replace(/Pad\d+|Anna\d+/, 'Changed') : l)).join('\n'));
  for (const worker of ['never', 'always']) {
    const env = { MEMBERCTL_CSV_WORKER: worker };
    const sync = ['--changed-only', '--state', 'state.db', '--json'];
    cases.push({
      name: `changed-only.${worker}`,
      files: [quoted, changed],
      env,
      steps: [
        { args: ['import', 'quoted.csv', ...sync] },
        { args: ['import', 'quoted-changed.csv', ...sync] },
        { args: ['import', 'quoted-changed.csv', ...sync] },
      ],
    });
    const shard = (i) => ({ args: ['import', 'duplicates.csv', '--shard', `${i}/2`, '--json'] });
    cases.push({ name: `shard.${worker}`, files: [join(inputs, 'duplicates.csv')], env, steps: [shard(0), shard(1)] });
    const slow = ['--concurrency', '1', '--batch-size', '50', '--json'];
    cases.push({
      name: `resume-after-kill.${worker}`,
      files: [join(inputs, 'quoted.csv')],
      env,
      steps: [
        { args: ['import', 'quoted.csv', ...slow], killAfterBodies: 12 },
        { args: ['import', 'quoted.csv', '--resume', ...slow], resumed: true },
      ],
    });
    cases.push({
      name: `stdin.${worker}`,
      files: [quoted],
      env,
      steps: [{ args: ['import', '-', '--format', 'csv', '--json'], stdin: 'quoted.csv' }],
      encodes: worker === 'always',
    });
  }
  for (const [name, taskset] of [
    ['one-core', '0'],
    ['two-cores', undefined],
  ])
    cases.push({
      name: `auto-${name}`,
      files: [join(inputs, 'padded', 'long-cells.csv')],
      taskset,
      steps: [{ args: ['import', 'long-cells.csv', '--no-journal', '--json'] }],
    });
  return cases;
}
