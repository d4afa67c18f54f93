// Why a shell ended, when something other than its exit status says so: written by a backend, matched by the Core
// (a pane's status) and by the window (its notice), so declared here once.
export const exitReasons = {
  /** The connection under a remote shell was lost: the shell may live on at the host, and the pane can reconnect. */
  connectionLost: 'connection lost',
} as const;

/** A reason the Core and the window match on; any other reason (a plugin's own words) is shown as it is. */
export type ExitReason = (typeof exitReasons)[keyof typeof exitReasons];
