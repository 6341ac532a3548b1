import { type Mutation, webGuard } from '../mutation.ts';

/**
 * Deleting an account in the web client (ADR 063): the Account page's form (the proof it asks for and sends, the tab
 * signed out onto the sign-in page, which says so) and the Users page's Delete (asked first, sent once, never offered
 * on the administrator's own row, the row gone after). Each entry deletes one guard in the source; the runner builds
 * the bundle from it (ADR 058).
 *
 * Not listed: the press of the Account form (the page's `sending` helper, pinned by account.mutations.ts's entries on
 * the other forms), and the balance and counts in the words (formatting, not guards).
 */
const BROWSER = 'tests/browser/account-deletion.test.ts';
const web = (source: string) => webGuard('account-deletion-web', source, [BROWSER]);
const account = web('web/src/pages/account.ts');
const users = web('web/src/pages/admin-users.ts');
const signIn = web('web/src/pages/auth.ts');

export const MUTATIONS: Mutation[] = [
  account('an account without a password is asked for a password to delete it', ['  const proof = hasPassword\n', '  const proof = (true as boolean)\n']),
  account('the deletion sends a password whatever the account proves itself with', ['{ body: { [proof.field]: proof.input.value } }', '{ body: { password: proof.input.value } }']),
  account('the tab stays signed in after its account is deleted', ["          ctx.setUser(null);\n          ctx.navigate('/login?deleted=1');", "          ctx.navigate('/login?deleted=1');"]),
  account('a deleted account lands on the sign-in page without a word of it', ["ctx.navigate('/login?deleted=1');", "ctx.navigate('/login');"]),
  signIn('the sign-in page says nothing of a deleted account', ["const deleted = mode === 'login' && params.has('deleted') ? ", "const deleted = (false as boolean) ? "]),
  signIn('every sign-in page says an account was deleted', ["mode === 'login' && params.has('deleted') ? ", "mode === 'login' ? "]),
  users('a user is deleted without asking', ['      if (!sure) return;\n', '']),
  users("the administrator's own row offers Delete", ['user.id === ctx.user?.id ? null : deleteButton(user)', 'deleteButton(user)']),
  users('Delete pressed again while a deletion is sent deletes again', ['      remove.disabled = true;\n', '']),
  users("a deleted user's row stays in the list", ['      try {\n        await load();\n      } catch (failure) {', '      try {\n        // The list is not read again.\n      } catch (failure) {']),
];
