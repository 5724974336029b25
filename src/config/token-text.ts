/**
 * What makes a token unusable: whitespace or control characters inside it would be sent in
 * the Authorization header and fail every request, so they are a config error, found at load
 * time and by check-config. The message never quotes the token.
 */
export function tokenProblem(token: string): string | undefined {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for.
  const bad = /[\s\u0000-\u001f\u007f]/.exec(token);
  if (!bad) return undefined;
  const what = /\s/.test(bad[0]) ? 'whitespace' : 'a control character';
  return `the token contains ${what} at position ${bad.index + 1}; a token is one word`;
}
