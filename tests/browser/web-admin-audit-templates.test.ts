import test from 'ava';
import { admin, ADMIN, pageOf, refusal, setUp, statusText, template, workflow } from './web-admin-audit-support.ts';

// The templates page's guards (web/src/pages/admin-templates.ts, web/src/dom.ts) (tests/mutation/mutations/web-admin.mutations.ts).
setUp();

// ---------------------------------------------------------------------------------------------------------------
// The templates page.

test.serial('a template name with markup is shown as text, never as HTML', async (t) => {
  const name = '<b>Bold</b> <img src=x>';
  await template(name);
  await pageOf(ADMIN, async (page) => {
    await page.goto('/admin/templates');
    const row = page.getByRole('row', { name: /Bold/ });
    await row.waitFor();
    t.is(await row.getByRole('cell').first().textContent(), name);
    t.is(await page.locator('main table b, main table img').count(), 0, 'no element made of the name');
    t.is(await row.getByRole('cell').nth(6).textContent(), '2 parameters');
  });
});

test.serial('step 1: a workflow that is not JSON is refused in the page and nothing is sent; a refusal of the server is shown; a later create clears it and empties the form', async (t) => {
  await pageOf(ADMIN, async (page) => {
    const posts: unknown[] = [];
    let refuse = true;
    await page.route('**/api/v1/workflow-templates', (route) => {
      if (route.request().method() !== 'POST') return route.fallback();
      posts.push(route.request().postDataJSON());
      if (refuse) return route.fulfill(refusal(409, 'A template named Step one exists already (test).'));
      return route.fallback();
    });
    await page.goto('/admin/templates');
    const form = page.locator('form', { has: page.getByRole('heading', { name: 'New template, step 1: the workflow' }) });
    await form.getByLabel('Name', { exact: true }).fill('Step one');
    await form.getByLabel('Category').selectOption('text-to-image');
    await form.getByLabel('Workflow (ComfyUI API format JSON)').fill('{"1": {');
    await form.getByRole('button', { name: 'Create and map parameters' }).click();
    const line = form.getByRole('status');
    await line.filter({ hasText: 'The workflow is not valid JSON (export it from ComfyUI with "Save (API format)").' }).waitFor();

    await form.getByLabel('Workflow (ComfyUI API format JSON)').fill(JSON.stringify(workflow()));
    await form.getByRole('button', { name: 'Create and map parameters' }).click();
    await line.filter({ hasText: 'A template named Step one exists already (test).' }).waitFor();
    t.is(posts.length, 1, 'the invalid JSON was never sent');
    t.like(posts[0], { name: 'Step one', category: 'text-to-image', cost: 1, outputType: 'image' });
    t.false(Object.hasOwn(posts[0] as object, 'description'), 'an empty description is left out');

    refuse = false;
    await form.getByRole('button', { name: 'Create and map parameters' }).click();
    await page.getByRole('heading', { name: 'Step 2: parameters of Step one' }).waitFor();
    t.is(await line.textContent(), '', 'the refusal is gone once the create worked');
    t.is(await form.getByLabel('Name', { exact: true }).inputValue(), '', 'the form is emptied for the next template');
    t.is(await form.getByLabel('Workflow (ComfyUI API format JSON)').inputValue(), '');
  });
});

test.serial('a workflow file fills the workflow field', async (t) => {
  await pageOf(ADMIN, async (page) => {
    await page.goto('/admin/templates');
    const text = JSON.stringify(workflow());
    await page.getByLabel('Workflow file').setInputFiles({ name: 'workflow.json', mimeType: 'application/json', buffer: Buffer.from(text) });
    await page.waitForFunction((expected) => (document.querySelector('textarea.code') as HTMLTextAreaElement | null)?.value === expected, text);
    t.pass();
  });
});

test.serial('a new workflow that is not JSON, or that the server refuses, keeps the editor open with the reason', async (t) => {
  await template('Rewired square');
  await pageOf(ADMIN, async (page) => {
    let refuse = true;
    await page.route(/\/api\/v1\/workflow-templates\/[^/]+$/, (route) =>
      route.request().method() === 'PATCH' && refuse ? route.fulfill(refusal(400, 'The parameter map no longer fits the workflow (test).')) : route.fallback(),
    );
    await page.goto('/admin/templates');
    await page.getByRole('button', { name: 'Edit workflow of Rewired square' }).click();
    const form = page.locator('form', { has: page.getByRole('heading', { name: /Workflow of Rewired square/ }) });
    const field = form.getByLabel('Workflow (ComfyUI API format JSON)');
    await field.fill('not json');
    await form.getByRole('button', { name: 'Save workflow' }).click();
    await form.getByRole('status').filter({ hasText: 'The workflow is not valid JSON.' }).waitFor();
    await field.fill(JSON.stringify(workflow()));
    await form.getByRole('button', { name: 'Save workflow' }).click();
    await form.getByRole('status').filter({ hasText: 'The parameter map no longer fits the workflow (test).' }).waitFor();
    t.is(await field.inputValue(), JSON.stringify(workflow()), "the administrator's edit is still there");
    refuse = false;
    const changed = { ...workflow(), '1': { class_type: 'EmptyImage', inputs: { width: 64, height: 64, batch_size: 1, color: 0xff0000 } } };
    await field.fill(JSON.stringify(changed));
    await form.getByRole('button', { name: 'Save workflow' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved the workflow of Rewired square: version 3.' }).waitFor();
    t.is(await form.count(), 0, 'the editor closes once saved');
  });
});

test.serial('publish and unpublish, activate and deactivate; a refused change is shown as an error; a dismissed delete deletes nothing', async (t) => {
  const id = await template('Toggled square', true);
  await pageOf(ADMIN, async (page) => {
    await page.goto('/admin/templates');
    const row = page.getByRole('row', { name: /Toggled square/ });
    await row.getByRole('cell', { name: 'published, active' }).waitFor();
    await page.getByRole('button', { name: 'Back to draft: Toggled square' }).click();
    await page.getByRole('status').filter({ hasText: 'Toggled square is a draft again: users no longer see it.' }).waitFor();
    await row.getByRole('cell', { name: 'draft, active' }).waitFor();
    t.is((await admin.get(`/workflow-templates/${id}`)).body.status, 'draft');

    await page.getByRole('button', { name: 'Deactivate Toggled square' }).click();
    await row.getByRole('cell', { name: 'draft, inactive' }).waitFor();
    await page.getByRole('button', { name: 'Activate Toggled square' }).click();
    await page.getByRole('status').filter({ hasText: 'Activated Toggled square.' }).waitFor();
    await row.getByRole('cell', { name: 'draft, active' }).waitFor();
    t.is(await page.locator('main > p[role="status"]').getAttribute('class'), 'status');

    await page.route(`**/api/v1/templates/${id}/publish`, (route) => route.fulfill(refusal(409, 'Map the prompt first (test).')));
    await page.getByRole('button', { name: 'Publish Toggled square' }).click();
    await page.getByRole('status').filter({ hasText: 'Map the prompt first (test).' }).waitFor();
    t.is(await page.locator('main > p[role="status"]').getAttribute('class'), 'status error');

    page.once('dialog', (dialog) => void dialog.dismiss());
    await page.getByRole('button', { name: 'Delete Toggled square' }).click();
    await page.getByRole('button', { name: 'Deactivate Toggled square' }).click();
    await page.getByRole('status').filter({ hasText: 'Deactivated Toggled square.' }).waitFor();
    t.is((await admin.get(`/workflow-templates/${id}`)).status, 200, 'still there');
    t.is(await statusText(page), 'Deactivated Toggled square.');
  });
});

test.serial('step 2: a required preset once, not removable; linked inputs not offered; presets used once; defaults sent typed; a refusal keeps the edits', async (t) => {
  await template('Mapped square');
  await pageOf(ADMIN, async (page) => {
    await page.route(/\/api\/v1\/workflow-templates\/parameter-presets\?/, (route) =>
      route.fulfill({
        json: [
          { key: 'prompt', type: 'string', label: 'Prompt', description: '' },
          { key: 'seed', type: 'seed', label: 'Seed', description: '' },
        ],
      }),
    );
    const sent: Record<string, Record<string, unknown>>[] = [];
    let refuse = true;
    await page.route(/\/parameter-map$/, (route) => {
      sent.push(route.request().postDataJSON() as Record<string, Record<string, unknown>>);
      return refuse ? route.fulfill(refusal(400, 'Parameter flag: the builtin engine cannot set it (test).')) : route.fallback();
    });
    await page.goto('/admin/templates');
    await page.getByRole('button', { name: 'Edit parameters of Mapped square' }).click();
    await page.getByRole('heading', { name: 'Step 2: parameters of Mapped square' }).waitFor();
    const rows = page.locator('.map-rows > li');
    t.is(await rows.count(), 2, 'prompt and width, the required prompt not added twice');
    t.is(await page.getByLabel('Node for parameter prompt').count(), 1);
    t.is(await page.getByRole('button', { name: 'Remove prompt' }).count(), 0, 'a required parameter cannot be removed');
    t.is(await page.getByRole('button', { name: 'Remove width' }).count(), 1);

    // The inputs of the SaveImage node: its linked input (images) is no value to set.
    await page.getByLabel('Node for parameter prompt').selectOption('2');
    t.deepEqual(await page.getByLabel('Input for parameter prompt').locator('option').allTextContents(), ['Choose an input', 'filename_prefix (now "square")']);
    await page.getByLabel('Node for parameter prompt').selectOption('3');
    await page.getByLabel('Input for parameter prompt').selectOption('value');

    t.deepEqual(await page.getByLabel('Preset').locator('option').allTextContents(), ['Seed (seed, seed)'], 'the prompt is used already');
    await page.getByRole('button', { name: 'Add preset' }).click();
    t.deepEqual(await page.getByLabel('Preset').locator('option').allTextContents(), []);
    t.true(await page.getByRole('button', { name: 'Add preset' }).isDisabled(), 'every preset is used');
    await page.getByRole('button', { name: 'Remove seed' }).click();
    t.false(await page.getByRole('button', { name: 'Add preset' }).isDisabled());

    await page.getByRole('button', { name: 'Add custom parameter' }).click();
    const custom = page.locator('.map-rows > li').last();
    await custom.getByLabel('Key').fill('flag');
    await custom.getByLabel('Type').selectOption('boolean');
    await custom.getByLabel('Node for custom parameter').selectOption('1');
    await custom.getByLabel('Input for custom parameter').selectOption('batch_size');
    await custom.getByLabel('Default', { exact: true }).fill('true');
    await page.getByRole('button', { name: 'Save parameter map' }).click();
    await page.getByRole('form', { name: 'Step 2: parameters of Mapped square' }).getByRole('status').filter({ hasText: 'Parameter flag: the builtin engine cannot set it (test).' }).waitFor();
    t.is(await custom.getByLabel('Key').inputValue(), 'flag', 'the edits are kept');
    t.deepEqual(Object.keys(sent[0]!), ['prompt', 'width', 'flag']);
    t.like(sent[0]!['width'], { type: 'integer', min: 16, max: 256, default: 64 });
    t.like(sent[0]!['flag'], { key: 'flag', type: 'boolean', node_id: '1', input_name: 'batch_size', default: true });
    t.like(sent[0]!['prompt'], { key: 'prompt', type: 'string', preset: 'prompt', node_id: '3', input_name: 'value' });

    refuse = false;
    await custom.getByRole('button', { name: 'Remove parameter' }).click();
    await page.getByRole('button', { name: 'Save parameter map' }).click();
    await page.getByRole('status').filter({ hasText: /^Saved Mapped square: version \d+, 2 parameters\.$/ }).waitFor();
    t.is(await page.getByRole('heading', { name: 'Step 2: parameters of Mapped square' }).count(), 0, 'the editor closes once saved');
  });
});

test.serial('step 2: min, max and default are checked against each other as they are typed', async (t) => {
  await template('Ranged square');
  await pageOf(ADMIN, async (page) => {
    await page.goto('/admin/templates');
    await page.getByRole('button', { name: 'Edit parameters of Ranged square' }).click();
    const min = page.getByLabel('Min of width');
    const max = page.getByLabel('Max of width');
    const fallback = page.getByLabel('Default', { exact: true });
    const message = (locator: typeof min) => locator.evaluate((el) => (el as HTMLInputElement).validationMessage);
    t.is(await message(min), '');
    await min.fill('300');
    t.is(await message(min), 'Min must not be above max.');
    await min.fill('256');
    t.is(await message(min), '', 'min equal to max is fine');
    await min.fill('16');
    await fallback.fill('300');
    t.is(await message(fallback), 'The default must lie between min and max.');
    await fallback.fill('8');
    t.is(await message(fallback), 'The default must lie between min and max.');
    await fallback.fill('abc');
    t.is(await message(fallback), 'The default must lie between min and max.', 'not a number');
    await fallback.fill('256');
    t.is(await message(fallback), '');
    await max.fill('');
    await fallback.fill('100000');
    t.is(await message(fallback), '', 'no max: no upper bound');
  });
});

test.serial('step 2 of a workflow with a negative text offers the negative prompt row, and only while the map is empty', async (t) => {
  const negativeWorkflow = {
    '1': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'model.safetensors' } },
    '2': { class_type: 'CLIPTextEncode', inputs: { text: 'a cat', clip: ['1', 1] } },
    '3': { class_type: 'CLIPTextEncode', inputs: { text: 'blurry', clip: ['1', 1] } },
    '4': { class_type: 'EmptyLatentImage', inputs: { width: 512, height: 512, batch_size: 1 } },
    '5': { class_type: 'KSampler', inputs: { model: ['1', 0], positive: ['2', 0], negative: ['3', 0], latent_image: ['4', 0], seed: 1, steps: 20, cfg: 7, sampler_name: 'euler', scheduler: 'normal', denoise: 1 } },
    '6': { class_type: 'VAEDecode', inputs: { samples: ['5', 0], vae: ['1', 2] } },
    '7': { class_type: 'SaveImage', inputs: { images: ['6', 0], filename_prefix: 'cat' } },
  };
  await pageOf(ADMIN, async (page) => {
    // The builtin engine has no SD nodes: the template is the test's own, in the list the page reads.
    const fake = { id: 'fake-negative', name: 'Negative cat', description: null, category: 'text-to-image', workflow: negativeWorkflow, parameter_map: {} as Record<string, unknown>, cost: 1, outputType: 'image', isActive: true, status: 'draft', requiredParameters: ['prompt'], version: 1 };
    await page.route(/\/api\/v1\/workflow-templates$/, async (route) => {
      if (route.request().method() !== 'GET') return route.fallback();
      const response = await route.fetch();
      return route.fulfill({ response, json: [...((await response.json()) as unknown[]), fake] });
    });
    await page.route('**/api/v1/workflow-templates/fake-negative/parameter-map', (route) => {
      fake.parameter_map = route.request().postDataJSON() as Record<string, unknown>;
      fake.version += 1;
      return route.fulfill({ json: fake });
    });
    await page.goto('/admin/templates');
    await page.getByRole('button', { name: 'Edit parameters of Negative cat' }).click();
    await page.getByLabel('Node for parameter negative_prompt').waitFor();
    t.is(await page.getByLabel('Node for parameter prompt').inputValue(), '2');
    t.is(await page.getByLabel('Node for parameter negative_prompt').inputValue(), '3');
    t.is(await page.getByRole('button', { name: 'Remove negative_prompt' }).count(), 1, 'offered, not required');
    await page.getByRole('button', { name: 'Remove negative_prompt' }).click();
    await page.getByRole('button', { name: 'Save parameter map' }).click();
    await page.getByRole('status').filter({ hasText: /^Saved Negative cat: version \d+, 1 parameters\.$/ }).waitFor();
    await page.getByRole('button', { name: 'Edit parameters of Negative cat' }).click();
    await page.getByRole('heading', { name: 'Step 2: parameters of Negative cat' }).waitFor();
    t.is(await page.locator('.map-rows > li').count(), 1, 'a map that was saved without it does not get it back');
    t.deepEqual(Object.keys(fake.parameter_map), ['prompt']);
  });
});

