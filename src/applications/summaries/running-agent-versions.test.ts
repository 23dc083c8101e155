import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareAgentVersions, runningAgentVersions } from './running-agent-versions.js';

describe('runningAgentVersions', () => {
  it('compares versions part by part as numbers, not as text', () => {
    assert.deepEqual(runningAgentVersions(['9.8.1', '13.2.0', '13.10.0', '12.0.0']), { minVersion: '9.8.1', maxVersion: '13.10.0' });
  });

  it('takes four-part versions (.NET, PHP) and treats a missing part as 0', () => {
    assert.deepEqual(runningAgentVersions(['10.30.0.0', '10.3.0', '10.30.0.1']), { minVersion: '10.3.0', maxVersion: '10.30.0.1' });
    assert.equal(compareAgentVersions('1.2', '1.2.0'), 0);
  });

  it('puts a pre-release before its release, and pre-releases in text order', () => {
    assert.equal(compareAgentVersions('13.0.0-beta.1', '13.0.0'), -1);
    assert.equal(compareAgentVersions('13.0.0', '13.0.0-beta.1'), 1);
    assert.equal(compareAgentVersions('13.0.0-alpha', '13.0.0-beta'), -1);
    assert.deepEqual(runningAgentVersions(['13.0.0', '13.0.0-rc.1', '12.9.9']), { minVersion: '12.9.9', maxVersion: '13.0.0' });
  });

  it('one version is both the oldest and the newest', () => {
    assert.deepEqual(runningAgentVersions(['13.20.0']), { minVersion: '13.20.0', maxVersion: '13.20.0' });
  });

  it('ignores instances that did not say, and is null when none did', () => {
    assert.deepEqual(runningAgentVersions([null, '8.1.0', '', undefined, ' 7.0.2 ']), { minVersion: '7.0.2', maxVersion: '8.1.0' });
    assert.equal(runningAgentVersions([]), null);
    assert.equal(runningAgentVersions([null, '  ']), null);
  });
});
