import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { browserLoaderScript, type LoaderScriptInput } from './browser-loader-script.js';

const INPUT: LoaderScriptInput = {
  accountId: 1,
  applicationId: 7,
  browserMonitoringKey: 'NRJS-0123456789abcdef012',
  settings: { cookiesEnabled: true, distributedTracingEnabled: true, loaderType: 'SPA' },
  origin: 'https://apm.example.com',
};

describe('browserLoaderScript', () => {
  it('configures the agent for the account, application and key, and loads the SPA loader from our origin', () => {
    assert.equal(browserLoaderScript(INPUT), [
      '<script type="text/javascript">;window.NREUM||(NREUM={});',
      'NREUM.init={distributed_tracing:{enabled:true},privacy:{cookies_enabled:true},ajax:{deny_list:["apm.example.com"]}};',
      'NREUM.loader_config={accountID:"1",trustKey:"1",agentID:"7",licenseKey:"NRJS-0123456789abcdef012",applicationID:"7"};',
      'NREUM.info={beacon:"apm.example.com",errorBeacon:"apm.example.com",licenseKey:"NRJS-0123456789abcdef012",applicationID:"7",sa:1};',
      '(function(d){var e=d.createElement("script");e.async=true;e.src="https://apm.example.com/browser-agent/nr-loader-spa.min.js";',
      'var f=d.getElementsByTagName("script")[0];if(f&&f.parentNode){f.parentNode.insertBefore(e,f)}else{d.head.appendChild(e)}})(document);',
      '</script>\n',
    ].join(''));
  });

  it('carries the settings: PRO is the full loader, LITE the rum one; cookies and tracing as configured', () => {
    const pro = browserLoaderScript({ ...INPUT, settings: { cookiesEnabled: false, distributedTracingEnabled: false, loaderType: 'PRO' } });
    assert.ok(pro.includes('NREUM.init={distributed_tracing:{enabled:false},privacy:{cookies_enabled:false},'));
    assert.ok(pro.includes('e.src="https://apm.example.com/browser-agent/nr-loader-full.min.js"'));
    const lite = browserLoaderScript({ ...INPUT, settings: { ...INPUT.settings, loaderType: 'LITE' } });
    assert.ok(lite.includes('/browser-agent/nr-loader-rum.min.js"'));
  });

  it('tells the agent to beacon over plain HTTP when the origin is http, port included', () => {
    const script = browserLoaderScript({ ...INPUT, origin: 'http://localhost:8080/' });
    assert.ok(script.includes('ajax:{deny_list:["localhost:8080"]},ssl:false};'));
    assert.ok(script.includes('NREUM.info={beacon:"localhost:8080",errorBeacon:"localhost:8080",'));
    assert.ok(script.includes('e.src="http://localhost:8080/browser-agent/nr-loader-spa.min.js"'));
  });

  it('cannot be closed early by what it embeds', () => {
    const script = browserLoaderScript({ ...INPUT, origin: 'https://x"</script><script>alert(1)</script>' });
    assert.equal(script.match(/<\/script>/g)?.length, 1);
    assert.ok(script.endsWith('</script>\n'));
    assert.ok(script.includes('"x\\"\\u003c/script>\\u003cscript>alert(1)\\u003c/script>"'));
  });
});
