import { describe, expect, it } from 'vitest';
import { configFromObject } from '../../src/config/load.ts';

describe('proxy credentials are secrets', () => {
  it('the loader hands the proxy password and the proxy CONNECT header values to the redactor', () => {
    const heard: string[] = [];
    configFromObject(
      {
        upstream: {
          base_url: 'https://station-data.example',
          token: 'the-upstream-token',
          proxy_url: 'http://plant:pr%40xy-pass@proxy.example:3128',
          proxy_connect_header: { 'Proxy-Authorization': ['Basic cGxhbnQ6c2VjcmV0'] },
        },
      },
      { env: {}, baseDir: '/', onSecret: (s) => heard.push(s) },
    );
    expect(heard).toEqual(['the-upstream-token', 'pr@xy-pass', 'Basic cGxhbnQ6c2VjcmV0']);
  });
});
