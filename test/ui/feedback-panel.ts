/**
 * The trace view's feedback panel, as issue 33 defect 8 asks it to behave, for the browser tests
 * on seeded data (everyday.test.ts) and on the Python client's (client-defects.test.ts).
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';

type Post = (route: string, body: unknown) => Promise<Record<string, any>>;

/** How many records of `type` (`wandb.reaction.1`, `wandb.note.1`) the call has in /feedback/query. */
async function feedbackCount(post: Post, projectId: string, callId: string, type: string): Promise<number> {
  const r = await post('/feedback/query', {
    project_id: projectId,
    query: { $expr: { $eq: [{ $getField: 'weave_ref' }, { $literal: `weave:///${projectId}/call/${callId}` }] } },
  });
  return (r.result as Array<{ feedback_type: string }>).filter((f) => f.feedback_type === type).length;
}

/**
 * Opens `callUrl`, a call that alice gave a 👍 and the note `note`: both records name her, a second
 * click on 👍 takes the reaction back, a third adds exactly one (not a duplicate), and the note's
 * Remove button deletes it; each step checked in /feedback/query.
 */
export async function checkFeedbackPanel(
  page: Page,
  post: Post,
  target: { callUrl: string; projectId: string; callId: string; note: string },
): Promise<void> {
  const count = (type: string) => feedbackCount(post, target.projectId, target.callId, type);
  await page.goto(target.callUrl);
  const list = page.locator('.feedback-list');
  for (const text of ['👍', target.note])
    await list
      .locator('li', { hasText: text })
      .getByText(/alice ·/)
      .waitFor();
  const thumbs = page.getByRole('button', { name: 'React with 👍' });
  assert.equal(await thumbs.getAttribute('aria-pressed'), 'true');
  await thumbs.click();
  await page.waitForFunction(() => !document.querySelector('.feedback-list li')?.textContent?.includes('👍'));
  assert.equal(await count('wandb.reaction.1'), 0);
  await thumbs.click();
  await list.locator('li', { hasText: '👍' }).waitFor();
  assert.equal(await count('wandb.reaction.1'), 1, 'one reaction, not a duplicate');
  await list
    .locator('li', { hasText: target.note })
    .getByRole('button', { name: /^Remove feedback/ })
    .click();
  await page.waitForFunction(
    (note) => !document.querySelector('.feedback-list')?.textContent?.includes(note),
    target.note,
  );
  assert.equal(await count('wandb.note.1'), 0);
}
