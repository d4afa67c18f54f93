// Doctor warns when an SSH target's host is this machine: its commands run here, outside any local sandbox.
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestCore, type TestCore } from '../tools/testCore.js';
import { firstLocal } from './thisMachine.js';
import { builtinProviders } from '../backends/providers.js';
import type { DoctorReport } from '../../../shared/api.js';

let t: TestCore | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('an SSH target that is this machine', () => {
  it.each<[string[], string[], string | undefined]>([
    [['127.0.0.1'], [], '127.0.0.1'],
    [['127.3.4.5'], [], '127.3.4.5'],
    [['::1'], [], '::1'],
    [['10.9.8.7'], ['10.9.8.7', 'fe80::1'], '10.9.8.7'],
    [['192.0.2.10'], ['10.9.8.7'], undefined],
    [[], ['10.9.8.7'], undefined],
  ])('%j among %j: %s', (addresses, local, found) => {
    expect(firstLocal(addresses, local)).toBe(found);
  });

  it('doctor warns about it by name; a host elsewhere gets no warning', async () => {
    t = await makeTestCore(['a', 'self', 'elsewhere'], {
      providers: builtinProviders,
      specs: {
        // Port 1: nothing listens, the probe fails fast; the warning is about where the host is, not whether it
        // answers.
        self: '{ backend: ssh, ssh_host: localhost, ssh_port: 1, ssh_user: nobody }',
        elsewhere: '{ backend: ssh, ssh_host: 192.0.2.10, ssh_port: 1, ssh_user: nobody }',
      },
    });
    const report = (await t.core.invoke('doctor.run', { timeout_ms: 2000 })) as DoctorReport;
    const warnings = report.problems.filter((p) => p.includes('is this machine'));
    expect(warnings).toEqual([
      expect.stringMatching(
        new RegExp(
          String.raw`^target "self": its host localhost is this machine \((127\.0\.0\.1|` +
            String.raw`::1)\): its commands run here as that account, outside any local sandbox$`,
        ),
      ),
    ]);
  });
});
