/**
 * Completion scripts are generated from the program: they must parse in their shell and complete what the
 * program really has. Plus the help that teaches: examples on every command, suggestions for wrong flags.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { completionModel } from '../../src/cli/completion/model.js';
import { CLI, configDir, isolatedEnv } from './config-cli-helper.js';
import { helpOf } from '../cli/help-of.js';
import { runInProcess } from '../cli/run-in-process.js';

const env = isolatedEnv();
const hasShell = (shell: string) => spawnSync(shell, ['-c', 'exit 0']).status === 0;

async function script(shell: string): Promise<string> {
  const { code, stdout, stderr } = await runInProcess(['completion', shell], env);
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return stdout;
}

function saved(text: string, name: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'memberctl-completion-')), name);
  writeFileSync(file, text);
  return file;
}

/** Runs the bash completion function as bash would for the words typed so far; returns COMPREPLY. */
function bashComplete(file: string, words: string[]): string[] {
  const quoted = words.map((word) => `'${word}'`).join(' ');
  const out = execFileSync(
    'bash',
    [
      '-c',
      `source '${file}'; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _memberctl; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ],
    {
      encoding: 'utf8',
    },
  );
  return out.split('\n').filter(Boolean);
}

describe('memberctl completion', () => {
  it('bash: passes bash -n and completes commands, sub-commands, options and choices', async () => {
    const file = saved(await script('bash'), 'memberctl.bash');
    execFileSync('bash', ['-n', file]);
    expect(bashComplete(file, ['memberctl', 'temp'])).toEqual(['template']);
    expect(bashComplete(file, ['memberctl', ''])).toEqual(
      expect.arrayContaining(['import', 'validate', 'subscribe', 'config', 'completion']),
    );
    expect(bashComplete(file, ['memberctl', 'config', ''])).toEqual(['show', 'check', 'profiles']);
    expect(bashComplete(file, ['memberctl', 'config', 'check', '--conn'])).toEqual(['--connect-timeout']);
    expect(bashComplete(file, ['memberctl', 'template', '--format', ''])).toEqual(['csv', 'json']);
    expect(bashComplete(file, ['memberctl', 'import', 'members.csv', '--log-format', 'j'])).toEqual(['json']);
    expect(bashComplete(file, ['memberctl', 'template', '--pro'])).toEqual(['--profile']); // global options everywhere
  });

  it('bash: completes --profile with the profile names of the config file, asking memberctl itself', async () => {
    const file = saved(await script('bash'), 'memberctl.bash');
    const bin = mkdtempSync(join(tmpdir(), 'memberctl-bin-'));
    writeFileSync(join(bin, 'memberctl'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, { mode: 0o755 });
    const { xdg } = configDir({ profiles: { staging: {}, prod: {}, 'prod-eu': {} } });
    const out = execFileSync(
      'bash',
      [
        '-c',
        `source '${file}'; COMP_WORDS=(memberctl import f.csv --profile pr); COMP_CWORD=4; _memberctl; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ],
      {
        encoding: 'utf8',
        env: { ...env, PATH: `${bin}:${process.env.PATH}`, XDG_CONFIG_HOME: xdg },
      },
    );
    expect(out.split('\n').filter(Boolean).sort()).toEqual(['prod', 'prod-eu']);
  });

  it('bash: offers every command and option the program defines', async () => {
    const file = saved(await script('bash'), 'memberctl.bash');
    const model = completionModel(buildProgram({ exitCode: 0 }));
    for (const node of model.nodes.filter((n) => n.path.length > 0)) {
      const offered = bashComplete(file, ['memberctl', ...node.path, '--']);
      for (const option of node.options) if (option.long) expect(offered, node.path.join(' ')).toContain(option.long);
    }
  });

  it('zsh: passes zsh -n and registers the completion function', async (context) => {
    const text = await script('zsh');
    expect(text.startsWith('#compdef memberctl\n')).toBe(true);
    expect(text).toContain("'config:show the effective settings");
    expect(text).toContain('compdef _memberctl memberctl');
    if (!hasShell('zsh')) context.skip();
    execFileSync('zsh', ['-n', saved(text, '_memberctl')]);
  });

  it('fish: passes fish -n and completes sub-commands and choices', async (context) => {
    const text = await script('fish');
    expect(text).toMatch(/^complete -c memberctl -f -n '.*' -a template -d 'write an import file/m);
    expect(text).toContain(
      "complete -c memberctl -n '__fish_seen_subcommand_from template' -l format -x -a 'csv json'",
    );
    if (!hasShell('fish')) context.skip();
    const file = saved(text, 'memberctl.fish');
    execFileSync('fish', ['-n', file]);
    const offered = execFileSync('fish', ['-c', `source '${file}'; complete -C 'memberctl config '`], {
      encoding: 'utf8',
    });
    expect(
      offered
        .split('\n')
        .map((line) => line.split('\t')[0])
        .filter(Boolean)
        .sort(),
    ).toEqual(['check', 'profiles', 'show']);
  });

  it('refuses an unknown shell, naming the ones it knows', async () => {
    const { code, stderr } = await runInProcess(['completion', 'powershell'], env);
    expect(code).toBe(2);
    expect(stderr).toContain('Allowed choices are bash, zsh, fish');
  });
});

describe('help that teaches', () => {
  const paths = completionModel(buildProgram({ exitCode: 0 })).nodes.map((node) => node.path);

  it('every command shows two or three examples in --help', async () => {
    const missing = paths
      .map((path) => ({
        path,
        examples: helpOf(path)
          .split('\n')
          .filter((line) => /^\s+\$ .*memberctl /.test(line)).length,
      }))
      .filter(({ examples }) => examples < 2)
      .map(({ path, examples }) => `memberctl ${path.join(' ')} (${examples} examples)`);
    expect(missing).toEqual([]);
    // and the built CLI prints the same text
    const { code, stdout } = await runInProcess(['config', 'check', '--help'], env);
    expect(code).toBe(0);
    expect(stdout).toBe(helpOf(['config', 'check']));
  });

  it('suggests the closest flag, for sub-commands and global flags too', { timeout: 120_000 }, async () => {
    const cases: [string[], string][] = [
      [
        ['template', '--formt', 'csv'],
        "error: unknown option '--formt'\n(Did you mean --format?)\nhint: see `memberctl template --help` for its arguments, flags and examples",
      ],
      [
        ['config', 'check', '--conect-timeout', '5'],
        "error: unknown option '--conect-timeout'\n(Did you mean --connect-timeout?)\nhint: see `memberctl config check --help` for its arguments, flags and examples",
      ],
      [
        ['config', 'show', '--profle', 'x'],
        "error: unknown option '--profle'\n(Did you mean --profile?)\nhint: see `memberctl config show --help` for its arguments, flags and examples",
      ],
      [
        ['tempalte'],
        "error: unknown command 'tempalte'\n(Did you mean template?)\nhint: see `memberctl --help` for its arguments, flags and examples",
      ],
      [
        ['config', 'chek'],
        "error: unknown command 'chek'\n(Did you mean check?)\nhint: see `memberctl config --help` for its arguments, flags and examples",
      ],
    ];
    for (const [args, message] of cases) {
      const { code, stderr } = await runInProcess(args, env);
      expect({ args, code, stderr: stderr.trim() }).toEqual({ args, code: 2, stderr: message });
    }
  });

  it('prints the version', async () => {
    const { code, stdout } = await runInProcess(['--version'], env);
    expect(code).toBe(0);
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
