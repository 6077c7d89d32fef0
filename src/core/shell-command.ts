/** A command line quoted for a POSIX shell, so that advice printed to the user can be pasted as it is. */
export function shellCommand(args: readonly string[]): string {
  return args.map(shellQuote).join(' ');
}

function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
