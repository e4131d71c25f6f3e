/**
 * `[eval] max_response_mb` in bytes: the largest answer a call takes, whether it was made
 * directly or came back in a batch (where it is the JSON of the answer's body).
 */
export function responseLimitBytes(maxResponseMb: number): number {
  return maxResponseMb * 1_000_000;
}

/** Why an answer over the limit is an error sample, never cached: the direct transport's words. */
export function tooLargeText(limit: number): string {
  return `the endpoint's answer is larger than ${limit / 1_000_000} MB ([eval] max_response_mb)`;
}
