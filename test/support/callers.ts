// A caller of the use cases as the API makes one (src/clusters/lookup.ts Caller): a built-in user's fresh
// token, validated by the app's own validator into its AuthContext.
import type { Caller } from '../../src/clusters/lookup.js';
import type { TestApp, User } from './app.js';

export async function callerOf(t: TestApp, user: User): Promise<Caller> {
  const token = await t.token(user);
  return { ctx: await t.app.services.validator.validate(token), token };
}
