/** How the final drain went: the checker trusts a wrong key as permanent only once its consumer has drained. */
export interface DrainResult {
  complete: boolean;
  ms: number;
  /** Why each consumer still behind at the deadline was not drained. */
  behind: Record<string, string>;
}
