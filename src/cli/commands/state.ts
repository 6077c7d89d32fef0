/** `memberctl state show|forget|reset --state FILE`: look into and correct the --changed-only state. */
import { Command } from 'commander';
import { forgetMember, resetState, stateOfMember, stateOverview } from '../../core/import-state/state-admin.js';
import { exitCodeFor } from '../exit-codes.js';
import { createOutput } from '../output.js';
import type { CommandResult } from '../program.js';

interface StateFlags {
  state: string;
  json?: boolean;
}

function withStateOptions(command: Command): Command {
  return command
    .requiredOption('--state <file>', 'the state file given to import --changed-only --state')
    .option('--json', 'print one JSON object on stdout');
}

export function stateCommand(result: CommandResult): Command {
  const state = new Command('state')
    .description('inspect or correct the --changed-only state: which members the server confirmed, with which item')
    .addHelpText(
      'after',
      `
Examples:
  $ memberctl state show --state members.state              members known and the last update
  $ memberctl state show M-1042 --state members.state       one member's item hash and when it was confirmed
  $ memberctl state forget M-1042 --state members.state     send this member next time, changed or not
  $ memberctl state reset --state members.state             send every member next time

Forgetting is always safe: a forgotten member is sent again (the import is an upsert).`,
    );

  state.addCommand(
    withStateOptions(new Command('show'))
      .description('count of members and last update; or, given MEMBER_ID, its item hash and confirmation time')
      .argument('[member-id]', 'one member to look up')
      .action((memberId: string | undefined, flags: StateFlags) => {
        const output = createOutput();
        if (memberId === undefined) {
          const overview = stateOverview(flags.state);
          if (flags.json) output.out(JSON.stringify(overview));
          else {
            output.out(`state file   ${overview.state}`);
            output.out(`members      ${overview.members.toLocaleString('en-US')}`);
            output.out(`last update  ${overview.lastUpdate ?? output.color.dim('never')}`);
            output.out(`target       ${overview.target ?? output.color.dim('none yet (bound by the next import)')}`);
          }
        } else {
          const member = stateOfMember(flags.state, memberId);
          if (flags.json) output.out(JSON.stringify(member));
          else if (!member.known) output.out(`${memberId}: not in the state (its next row will be sent)`);
          else output.out(`${memberId}: item hash ${member.hash}, confirmed ${member.updatedAt}`);
        }
        result.exitCode = exitCodeFor('ok');
      }),
  );

  state.addCommand(
    withStateOptions(new Command('forget'))
      .description('forget one member, so its next row is sent whether it changed or not')
      .argument('<member-id>', 'the memberId to forget')
      .action((memberId: string, flags: StateFlags) => {
        const output = createOutput();
        const outcome = forgetMember(flags.state, memberId);
        if (flags.json) output.out(JSON.stringify(outcome));
        else output.out(outcome.forgotten ? `forgot ${memberId}: its next row will be sent` : `${memberId} was not in the state: nothing to forget`);
        result.exitCode = exitCodeFor('ok');
      }),
  );

  state.addCommand(
    withStateOptions(new Command('reset'))
      .description('forget every member, so the next --changed-only import sends everything')
      .action((flags: StateFlags) => {
        const output = createOutput();
        const outcome = resetState(flags.state);
        if (flags.json) output.out(JSON.stringify(outcome));
        else output.out(`forgot ${outcome.forgotten.toLocaleString('en-US')} member${outcome.forgotten === 1 ? '' : 's'}: the next import sends every member`);
        result.exitCode = exitCodeFor('ok');
      }),
  );
  const examples: Record<string, string> = {
    show: `  $ memberctl state show --state members.state              members known and the last update
  $ memberctl state show M-1042 --state members.state --json    one member's item hash, for a script`,
    forget: `  $ memberctl state forget M-1042 --state members.state     send this member next time, changed or not
  $ memberctl state forget M-1042 --state members.state --json`,
    reset: `  $ memberctl state reset --state members.state             send every member next time
  $ memberctl state reset --state members.state && memberctl import members.csv --changed-only --state members.state`,
  };
  for (const sub of state.commands) sub.exitOverride().addHelpText('after', `\nExamples:\n${examples[sub.name()] ?? ''}`);
  return state;
}
