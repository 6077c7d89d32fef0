/** `memberctl state show|forget|reset --state FILE`: look into and correct the --changed-only state. */
import { Command } from 'commander';
import { exitCodeFor } from '../exit-codes.js';
import { createOutput } from '../output.js';
import type { CommandResult } from '../program.js';

/** The state's code is loaded when a state command runs: --help and the other commands do not pay for it. */
const stateAdmin = () => import('../../core/import/durable/state-admin.js');

interface StateFlags {
  state: string;
  json?: boolean;
  out?: string;
  force?: boolean;
}

function withStateOptions(command: Command): Command {
  return command
    .requiredOption('--state <file>', 'the state file given to import --changed-only --state (required)')
    .option('--json', 'print one JSON object on stdout');
}

export function stateCommand(result: CommandResult): Command {
  const state = new Command('state')
    .description('inspect or correct the --changed-only state: which members the server confirmed, with which item')
    .addHelpText(
      'after',
      `
Examples:
  $ memberctl state init --state members.state              an empty state, before a job's first --require-state run
  $ memberctl state show --state members.state              members known and the last update
  $ memberctl state show M-1042 --state members.state       one member's item hash and when it was confirmed
  $ memberctl state forget M-1042 --state members.state     send this member next time, changed or not
  $ memberctl state reset --state members.state             send every member next time (also: a damaged state)
  $ memberctl state absent --state members.state --out gone.csv   members the last export no longer held

Forgetting is always safe: a forgotten member is sent again (the import is an upsert).`,
    );

  for (const sub of [initCommand, showCommand, forgetCommand, resetCommand, absentCommand])
    state.addCommand(sub(result));
  const examples: Record<string, string> = {
    init: `  $ memberctl state init --state /var/lib/memberctl/crm.state    once, before the first night
  $ memberctl state init --state members.state --json`,
    show: `  $ memberctl state show --state members.state              members known and the last update
  $ memberctl state show M-1042 --state members.state --json    one member's item hash, for a script`,
    forget: `  $ memberctl state forget M-1042 --state members.state     send this member next time, changed or not
  $ memberctl state forget M-1042 --state members.state --json`,
    reset: `  $ memberctl state reset --state members.state             send every member next time
  $ memberctl state reset --state members.state && memberctl import members.csv --changed-only --state members.state`,
    absent: `  $ memberctl state absent --state members.state                  memberId,absentSince lines on stdout
  $ memberctl state absent --state members.state --out gone.csv --json`,
  };
  for (const sub of state.commands)
    sub.exitOverride().addHelpText('after', `\nExamples:\n${examples[sub.name()] ?? ''}`);
  return state;
}

function initCommand(result: CommandResult): Command {
  return withStateOptions(new Command('init'))
    .description(
      'create an empty state (its first --changed-only import sends every member); one already there is kept as it is',
    )
    .action(async (flags: StateFlags) => {
      const { initState, withStateLock } = await stateAdmin();
      const output = createOutput();
      const outcome = await withStateLock(flags.state, () => initState(flags.state));
      const n = outcome.members.toLocaleString('en-US');
      if (flags.json) output.out(JSON.stringify(outcome));
      else
        output.out(
          outcome.created
            ? `created an empty state at ${flags.state}: the next import with --changed-only --state sends every member`
            : `a state is already at ${flags.state} (${n} member${outcome.members === 1 ? '' : 's'}): left as it is`,
        );
      result.exitCode = exitCodeFor('ok');
    });
}

function showCommand(result: CommandResult): Command {
  return withStateOptions(new Command('show'))
    .description('count of members and last update; or, given MEMBER_ID, its item hash and confirmation time')
    .argument('[member-id]', 'one member to look up')
    .action(async (memberId: string | undefined, flags: StateFlags) => {
      const { stateOfMember, stateOverview } = await stateAdmin();
      const output = createOutput();
      if (memberId === undefined) {
        const overview = stateOverview(flags.state);
        const n = (count: number) => count.toLocaleString('en-US');
        if (flags.json) output.out(JSON.stringify(overview));
        else if ('damaged' in overview) {
          output.out(`state file   ${overview.state}`);
          output.out(`damaged      ${overview.problem}`);
          output.out(`to recover   ${overview.hint}`);
        } else {
          output.out(`state file   ${overview.state}`);
          output.out(`members      ${n(overview.members)}`);
          output.out(`last update  ${overview.lastUpdate ?? output.color.dim('never')}`);
          output.out(`target       ${overview.target ?? output.color.dim('none yet (bound by the next import)')}`);
          output.out(
            `last good    ${overview.lastGoodRows === null ? output.color.dim('no whole run yet') : `${n(overview.lastGoodRows)} rows (the shrink guard compares with this)`}`,
          );
          output.out(
            `absent       ${n(overview.absent)} members not in the last whole run's input (memberctl state absent lists them)`,
          );
        }
        // a damaged state is reported, not thrown; the exit code still tells a script it cannot be used
        result.exitCode = exitCodeFor('damaged' in overview ? 'usage' : 'ok');
        return;
      } else {
        const member = stateOfMember(flags.state, memberId);
        if (flags.json) output.out(JSON.stringify(member));
        else if (!member.known) output.out(`${memberId}: not in the state (its next row will be sent)`);
        else output.out(`${memberId}: item hash ${member.hash}, confirmed ${member.updatedAt}`);
      }
      result.exitCode = exitCodeFor('ok');
    });
}

function forgetCommand(result: CommandResult): Command {
  return withStateOptions(new Command('forget'))
    .description('forget one member, so its next row is sent whether it changed or not')
    .argument('<member-id>', 'the memberId to forget')
    .action(async (memberId: string, flags: StateFlags) => {
      const { forgetMember, withStateLock } = await stateAdmin();
      const output = createOutput();
      const outcome = await withStateLock(
        flags.state,
        () => forgetMember(flags.state, memberId),
        (message) => output.err(`note: ${message}`),
      );
      if (flags.json) output.out(JSON.stringify(outcome));
      else
        output.out(
          outcome.forgotten
            ? `forgot ${memberId}: its next row will be sent`
            : `${memberId} was not in the state: nothing to forget`,
        );
      result.exitCode = exitCodeFor('ok');
    });
}

function resetCommand(result: CommandResult): Command {
  return withStateOptions(new Command('reset'))
    .description('forget every member, so the next --changed-only import sends everything')
    .action(async (flags: StateFlags) => {
      const { resetState, withStateLock } = await stateAdmin();
      const output = createOutput();
      const outcome = await withStateLock(
        flags.state,
        () => resetState(flags.state),
        (message) => output.err(`note: ${message}`),
      );
      if (flags.json) output.out(JSON.stringify(outcome));
      else if (outcome.damagedMovedTo)
        output.out(
          `the damaged state was moved to ${outcome.damagedMovedTo}; a new, empty state is in its place: the next import sends every member`,
        );
      else
        output.out(
          `forgot ${outcome.forgotten!.toLocaleString('en-US')} member${outcome.forgotten === 1 ? '' : 's'}: the next import sends every member`,
        );
      result.exitCode = exitCodeFor('ok');
    });
}

function absentCommand(result: CommandResult): Command {
  return withStateOptions(new Command('absent'))
    .description("list the members in the state that the last whole run's input did not hold (the API has no delete)")
    .option('--out <file>', 'write the list here as CSV (memberId,absentSince) instead of to stdout')
    .option('--force', 'replace --out even when it is not the file memberctl last wrote there (edited since)')
    .action(async (flags: StateFlags) => {
      result.exitCode = await absentAction(flags);
    });
}

async function absentAction(flags: StateFlags): Promise<number> {
  const { listAbsent } = await stateAdmin();
  const { openOutputFile } = await import('../../io/output-file.js');
  const { checkOutputPaths } = await import('../../io/output-paths.js');
  const output = createOutput();
  const header = 'memberId,absentSince';
  const line = (member: { memberId: string; absentSince: string }) =>
    `${csvCell(member.memberId)},${member.absentSince}`;
  if (flags.out) {
    // the state file itself (or its -wal) must never be the output
    await checkOutputPaths([flags.state, `${flags.state}-wal`], [{ flag: '--out', path: flags.out, ownOnly: true }], {
      force: flags.force,
    });
    const file = await openOutputFile(flags.out, 'absent members', { force: flags.force });
    let count: number;
    try {
      await file.writeLine(header);
      count = await listAbsent(flags.state, (member) => file.writeLine(line(member)));
      await file.close();
    } catch (error) {
      await file.abort().catch(() => undefined); // an earlier list at that path stays as it was
      throw error;
    }
    output.out(
      flags.json
        ? JSON.stringify({ state: flags.state, absent: count, out: flags.out })
        : `${count.toLocaleString('en-US')} members absent from the last whole run's input: ${flags.out}`,
    );
  } else if (flags.json) {
    const members: { memberId: string; absentSince: string }[] = [];
    const count = await listAbsent(flags.state, (member) => void members.push(member));
    output.out(JSON.stringify({ state: flags.state, absent: count, members }));
  } else {
    output.out(header);
    await listAbsent(flags.state, (member) => output.out(line(member)));
  }
  return exitCodeFor('ok');
}

function csvCell(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
