import { urlUserinfo } from "./redact.js";

/** Names of variables whose values are secrets: API keys, tokens, passwords, credentials. */
const SECRET_NAME = /(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_KEY|AUTH)/i;

export function looksSecret(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** The values of the variables whose names look like keys or tokens. */
export function secretValues(env: Readonly<Record<string, string | undefined>>): string[] {
  return Object.entries(env).flatMap(([name, value]) =>
    value !== undefined && looksSecret(name) ? [value] : [],
  );
}

/**
 * The credentials of a URL (`user:password@`, or a bare `token@`), as written and decoded; a
 * user name beside a password is not a secret (it would scrub every "admin" in every answer).
 */
export function urlCredentials(url: string): string[] {
  const userinfo = urlUserinfo(url);
  if (userinfo === null) return [];
  const colon = userinfo.indexOf(":");
  const secret = colon === -1 ? userinfo : userinfo.slice(colon + 1);
  return [userinfo, secret].flatMap((part) => [part, safeDecode(part)]);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
