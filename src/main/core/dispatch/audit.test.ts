import { describe, expect, it } from 'vitest';
import { redact, summarizeArgs } from './audit.js';
import { writeFileTool } from '../tools/writeFile.js';

describe('redact', () => {
  const cases: Array<[string, string, string]> = [
    ['bearer header', `curl -H 'Authorization: Bearer abcDEF123456ghiJKL' https://x`, 'abcDEF123456ghiJKL'],
    ['basic header', 'curl -H "Authorization: Basic dXNlcjpwYXNzd29yZA==" x', 'dXNlcjpwYXNzd29yZA=='],
    ['bare bearer', 'echo Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig', 'eyJhbGciOiJIUzI1NiJ9'],
    ['url credentials', 'psql postgres://admin:S3cretPw@db.example:5432/app', 'S3cretPw'],
    ['password flag', 'mysql --password hunter2secret -h db', 'hunter2secret'],
    ['password flag with =', 'tool --token=tok_123456789 run', 'tok_123456789'],
    ['prefixed env', 'API_TOKEN=abc123xyz ./deploy', 'abc123xyz'],
    ['quoted env', 'export DB_PASSWORD="p a"', 'p a'],
    ['github token', 'git clone https://ghp_abcdefghijklmnop1234@github.example/x', 'ghp_abcdefghijklmnop1234'],
    ['private key', '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----', 'b3BlbnNzaC1rZXktdjEAAAAA'],
  ];
  for (const [name, text, secret] of cases) {
    it(name, () => {
      const out = redact(text);
      expect(out).not.toContain(secret);
      expect(out).toContain('[redacted]');
    });
  }
  it('leaves ordinary commands alone', () => {
    for (const text of ['ls -la /tmp', 'ssh -p 2222 user@host', 'git push origin main', 'echo token count is 3']) expect(redact(text)).toBe(text);
  });
  it('summarizes a write without its content', () => {
    expect(summarizeArgs(writeFileTool, { path: 'a.env', content: 'SECRET=1' })).toBe('a.env (8 chars)');
  });
});
