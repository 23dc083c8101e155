import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkIncidentTemplates, renderIncidentTemplate } from '../../src/domain/alerts/incident-annotations.js';

// The title/description template subset: paths, triple-stash, json, keys holding dots, unknown names.
const vars = {
  conditionName: "Bob's <shop>",
  threshold: 2.5,
  tag: { appName: 'checkout', 'entity.guid': 'MXxBUE18' },
  'entity.name': 'checkout',
  runbookUrl: null,
  list: ['a', 'b'],
};

test('paths render as plain text, nothing HTML-escaped; unknown and null render empty', () => {
  assert.equal(renderIncidentTemplate("{{conditionName}} / {{{conditionName}}} / {{ threshold }}", vars), "Bob's <shop> / Bob's <shop> / 2.5");
  assert.equal(renderIncidentTemplate('[{{missing}}][{{runbookUrl}}][{{tag.nothing}}]', vars), '[][][]');
  assert.equal(renderIncidentTemplate('{{tag.appName}} {{tag.entity.guid}} {{entity.name}} {{list.[1]}}', vars), 'checkout MXxBUE18 checkout b');
});

test('json renders a JSON value, null for an unknown name', () => {
  assert.equal(renderIncidentTemplate('{{json conditionName}} {{json list}} {{json missing}} {{json threshold}}', vars), '"Bob\'s <shop>" ["a","b"] null 2.5');
});

test('block helpers and expressions that are not one variable are refused, naming the field', () => {
  assert.deepEqual(checkIncidentTemplates({ titleTemplate: '{{#if tag.appName}}x{{/if}}', description: 'ok {{conditionName}}' }), [
    { name: 'titleTemplate', reason: 'Block helpers, partials and comments ({{#if}}, {{#each}}, {{> …}}, {{! …}}) are not supported; use {{variable}} or {{json variable}}' },
  ]);
  assert.deepEqual(checkIncidentTemplates({ titleTemplate: null, description: 'value {{ threshold + 1 }}' }), [
    { name: 'description', reason: 'Every {{…}} must name one variable, such as {{conditionName}} or {{tag.appName}}' },
  ]);
  assert.deepEqual(checkIncidentTemplates({ titleTemplate: 'plain {{json tag.appName}}', description: undefined }), []);
});
