// A REST entry's operation with the fragment its selection spreads. Field lists shared by a read and
// a list are fragments (not text pasted into the operation) so that GraphQL Code Generator can read
// every operation in rest/*.ts as it is written, and type it.
export function withFragment(operation: string, fragment: string): string {
  return `${operation}\n${fragment}`;
}
