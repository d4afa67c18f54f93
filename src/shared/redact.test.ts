import { describe, expect, it } from 'vitest';
import { MAX_REDACTED_CHARS, looksLikeSecretValue, redact } from './redact.js';

describe('redact', () => {
  /** [what, text, the secret that must be gone, what must still be there]. */
  const cases: Array<[string, string, string, string?]> = [
    [
      'bearer header',
      `curl -H 'Authorization: Bearer abcDEF123456ghiJKL' https://x`,
      'abcDEF123456ghiJKL',
      'https://x',
    ],
    ['basic header', 'curl -H "Authorization: Basic dXNlcjpwYXNzd29yZA==" x', 'dXNlcjpwYXNzd29yZA=='],
    [
      'header without a scheme',
      `curl -H 'Authorization: s3cr3tvalue99' https://api.example`,
      's3cr3tvalue99',
      'https://api.example',
    ],
    ['proxy authorization', `curl -H 'Proxy-Authorization: Basic cHJveHk6cHc=' x`, 'cHJveHk6cHc='],
    ['cookie header', `curl -H 'Cookie: session=9f8e7d6c5b4a; csrftoken=abc' https://x`, '9f8e7d6c5b4a', 'https://x'],
    ['set-cookie header', 'echo "Set-Cookie: sid=deadbeefcafe; HttpOnly"', 'deadbeefcafe'],
    ['x-api-key header', `curl -H "X-Api-Key: key_live_12345678" https://x`, 'key_live_12345678'],
    ['bare bearer', 'echo Bearer abcdefghijklmnopq', 'abcdefghijklmnopq'],
    [
      'jwt',
      'curl -d token=1 https://x; echo ' +
        'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
      'dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    ],
    ['url credentials', 'psql postgres://admin:S3cretPw@db.example:5432/app', 'S3cretPw', 'db.example:5432/app'],
    ['url credentials, empty user', 'redis-cli -u redis://:R3disPass@cache:6379', 'R3disPass', 'cache:6379'],
    ['mysql -p attached', 'mysql -u root -pHunter2Secret -h db app', 'Hunter2Secret', '-h db app'],
    ['mysql -p quoted', `mysqldump -u root -p'pa ss' app > dump.sql`, 'pa ss', 'dump.sql'],
    ['mysql --password=', 'mysql --password=Hunter3 -h db', 'Hunter3', '-h db'],
    ['mariadb -p', 'mariadb -uroot -pMariaPw1 -e "select 1"', 'MariaPw1', 'select 1'],
    ['sshpass -p', 'sshpass -p Sup3rPw ssh -p 2222 admin@host uptime', 'Sup3rPw', 'ssh -p 2222 admin@host'],
    ['sshpass -p quoted', `sshpass -p 'two words' scp f host:`, 'two words'],
    ['docker login -p', 'docker login -u bot -p RegistryPw9 registry.example', 'RegistryPw9', 'registry.example'],
    ['docker login --password', 'docker login --username bot --password RegistryPw8 ghcr.io', 'RegistryPw8', 'ghcr.io'],
    ['podman login -p', 'podman login -u bot -p=PodPw77 quay.io', 'PodPw77'],
    ['curl -u user:pass', 'curl -u alice:CurlPw42 https://api.example/v1', 'CurlPw42', 'alice'],
    ['curl --user=', 'curl -s --user=alice:CurlPw43 https://x', 'CurlPw43'],
    ['wget --http-password', 'wget --http-user=bob --http-password=WgetPw1 https://x/f', 'WgetPw1'],
    [
      'json password',
      `curl -d '{"username": "a", "password": "JsonPw1!"}' https://x/login`,
      'JsonPw1!',
      '"username": "a"',
    ],
    ['json api_key', `echo '{"api_key":"ak_998877"}' > cfg.json`, 'ak_998877', 'cfg.json'],
    ['json token, single quotes', `python3 -c "print({'access_token': 'tok998877'})"`, 'tok998877'],
    ['json secret, escaped quotes', `sh -c "curl -d {\\"client_secret\\":\\"Esc4pedPw\\"} x"`, 'Esc4pedPw'],
    ['json passwd number', '{"passwd": 12345678, "user": "x"}', '12345678', '"user": "x"'],
    ['htpasswd -b', 'htpasswd -b /etc/nginx/.htpasswd admin HtPw55', 'HtPw55', '/etc/nginx/.htpasswd admin'],
    ['htpasswd -bc', 'htpasswd -bcB .htpasswd admin HtPw56 && echo ok', 'HtPw56', 'echo ok'],
    ['htpasswd -nb', 'htpasswd -nb admin HtPw57', 'HtPw57'],
    [
      'aws configure set',
      'aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    ],
    [
      'aws configure set, profile',
      'aws configure set profile.dev.aws_session_token FwoGZXIvYXdzEBEaDExampleSessionToken',
      'FwoGZXIvYXdzEBEaDExampleSessionToken',
    ],
    [
      'aws secret key in a credentials file',
      `printf 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' >> creds`,
      'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    ],
    [
      'aws env',
      'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY aws s3 ls',
      'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      'aws s3 ls',
    ],
    ['aws access key id', 'export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE', 'AKIAIOSFODNN7EXAMPLE'],
    ['aws access key id alone', 'echo AKIAIOSFODNN7EXAMPLE', 'AKIAIOSFODNN7EXAMPLE'],
    ['password flag', 'mysql --password hunter2secret -h db', 'hunter2secret'],
    ['token flag with =', 'tool --token=tok_123456789 run', 'tok_123456789', 'run'],
    ['prefixed flag', 'app --db-password Pg9pw --port 5432', 'Pg9pw', '--port 5432'],
    ['redis-cli -a', 'redis-cli -h cache -a RedisPw5 ping', 'RedisPw5', 'ping'],
    ['ldapsearch -w', 'ldapsearch -x -D cn=admin -w LdapPw6 -b dc=x', 'LdapPw6'],
    ['openssl -passin', 'openssl rsa -in k.pem -passin pass:OsslPw7 -out k2.pem', 'OsslPw7', 'k2.pem'],
    ['prefixed env', 'API_TOKEN=abc123xyz ./deploy', 'abc123xyz', './deploy'],
    ['quoted env', 'export DB_PASSWORD="p a"', 'p a'],
    ['yaml-ish', 'echo "password: YamlPw8" >> config.yml', 'YamlPw8', 'config.yml'],
    ['github token', 'git clone https://ghp_abcdefghijklmnop1234@github.example/x', 'ghp_abcdefghijklmnop1234'],
    ['openai key', 'echo sk-proj-abcdefghijklmnop', 'abcdefghijklmnop'],
    [
      'private key',
      '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----',
      'b3BlbnNzaC1rZXktdjEAAAAA',
    ],
    ['github pat by name', 'GH_PAT=abcdef123456789 gh auth status', 'abcdef123456789', 'gh auth status'],
    ['sentry dsn by name', 'export SENTRY_DSN=dsnvalue99887766', 'dsnvalue99887766'],
    [
      'env output lines',
      'HOME=/root\nGH_PAT=abc123secret\nDATABASE_URL=postgres://u:Pw0rd99@h/db\nLANG=C',
      'Pw0rd99',
      'LANG=C',
    ],
    ['env output, pat', 'HOME=/root\nGH_PAT=abc123secret\nLANG=C', 'abc123secret', 'HOME=/root'],
    ['-u user:pass, any program', 'foo -u admin:AdminPw11 --verbose', 'AdminPw11', 'admin:'],
    ['curl bundled -su', 'curl -su admin:BundledPw12 https://x', 'BundledPw12', 'https://x'],
    ['httpie -a', 'http -a bob:HttpiePw13 https://x', 'HttpiePw13', 'bob:'],
    ['--auth=', 'tool --auth=bob:AuthPw14 go', 'AuthPw14', 'go'],
    ['netrc', 'machine api.example login bob password NetrcPw15', 'NetrcPw15', 'login bob'],
    ['PGPASSWORD', 'PGPASSWORD=PgPw16 psql -h db', 'PgPw16', 'psql -h db'],
    ['token= in a query string', 'curl "https://api.example/v1?token=QueryTok17&page=2"', 'QueryTok17', 'page=2'],
    ['gitlab token', 'echo glpat-abcdefghij0123456789', 'glpat-abcdefghij0123456789'],
    ['slack token', 'echo xoxb-1234567890-abcdefghij', 'xoxb-1234567890-abcdefghij'],
    [
      'docker config auth',
      '{"auths": {"ghcr.io": {"auth": "Ym90OkRvY2tlclB3MTg="}}}',
      'Ym90OkRvY2tlclB3MTg=',
      'ghcr.io',
    ],
    [
      'kubeconfig key data',
      '    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVkt',
      'LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVkt',
      'client-key-data',
    ],
    [
      'azure connection string',
      'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=QXp1cmVLZXkxOQ==;EndpointSuffix=core',
      'QXp1cmVLZXkxOQ==',
      'AccountName=acct',
    ],
    [
      'slack webhook',
      'curl -X POST https://hooks.slack.com/services/T000/B000/SlackHook20 -d x',
      'SlackHook20',
      '-d x',
    ],
    ['discord webhook', 'curl https://discord.com/api/webhooks/123/DiscordHook21', 'DiscordHook21'],
    ['a value quoted in parts', `export TRICKY_SECRET='it'\\''s "q" two words Part23'; ls`, 'Part23', '; ls'],
    ['a value with escaped blanks', 'API_TOKEN=two\\ words\\ Part24 ./run', 'Part24', './run'],
    [
      'mongo -p',
      'mongosh -u admin -p MongoPw25 --authenticationDatabase admin',
      'MongoPw25',
      '--authenticationDatabase admin',
    ],
    ['sqlcmd -P', 'sqlcmd -S db -U sa -P SqlPw26 -Q "select 1"', 'SqlPw26', 'select 1'],
    ['zip -P', 'zip -P ZipPw27 out.zip file', 'ZipPw27', 'out.zip file'],
    ['7z -p', '7z a -pSevenPw28 out.7z dir', 'SevenPw28', 'out.7z dir'],
    [
      'keytool -storepass',
      'keytool -list -keystore ks.jks -storepass StorePw29 -keypass KeyPw30',
      'StorePw29',
      'ks.jks',
    ],
    ['keytool -keypass', 'keytool -list -keystore ks.jks -storepass StorePw29 -keypass KeyPw30', 'KeyPw30'],
    ['curl -u quoted, with a blank', `curl -u 'admin:pa ss Part32' https://x`, 'ss Part32', 'https://x'],
    ['--user= double-quoted', 'tool --user="bob:two words Part33" go', 'Part33', 'go'],
    [
      'authorization as a dict key',
      `requests.get(u, headers={"Authorization": "token DictTok34"})`,
      'DictTok34',
      'requests.get',
    ],
    ['python auth tuple', `requests.get(u, auth=("bob", "TuplePw35"))`, 'TuplePw35', '"bob"'],
    [
      'echo into --password-stdin',
      `echo 'StdinPw36' | docker login -u bot --password-stdin ghcr.io`,
      'StdinPw36',
      'ghcr.io',
    ],
    ['vault token', 'echo hvs.CAESIVaultToken22abcdefghij', 'hvs.CAESIVaultToken22abcdefghij'],
  ];
  it.each(cases)('%s', (_what, text, secret, kept) => {
    const out = redact(text);
    expect(out).not.toContain(secret);
    expect(out).toContain('[redacted]');
    if (kept) expect(out).toContain(kept);
  });

  const everyday = [
    'ls -la /tmp',
    'ssh -p 2222 user@host',
    'ssh -i ~/.ssh/id_ed25519 -p 22 deploy@example.com uptime',
    'scp -P 2222 file.txt user@host:/srv/',
    'docker run -p 8080:80 -e MODE=dev nginx',
    'docker run --rm -p 5432:5432 -v /data:/var/lib/postgresql/data postgres:16',
    'docker login ghcr.io --password-stdin',
    'mkdir -p build/out && cp -rp src build/',
    'mysql -u root -p app',
    'mysql -h db -P 3306 -u app -p',
    'psql -h db -p 5432 -U app -c "select 1"',
    'ps -p 1234 -o pid,cmd',
    'git push origin main',
    'git log --oneline -n 5 -- src/auth/token.ts',
    'git commit -m "fix token refresh"',
    'grep -rn password src/',
    'cat /home/me/project/secrets/README.md',
    'kubectl get secret my-secret -o yaml',
    'echo $GITHUB_TOKEN | wc -c',
    'echo token count is 3',
    'export PATH=$PATH:/opt/bin',
    'curl -u alice https://api.example',
    'curl -d \'{"model": "x", "max_tokens": 100}\' https://api.example/v1',
    'tar -xzpf release.tar.gz -C /opt',
    'htpasswd -c .htpasswd admin',
    'npm run build -- --port 3000',
    'python3 -m http.server 8000 -b 127.0.0.1',
    'find . -name "*.py" -path "*/tests/*"',
    'aws s3 ls s3://bucket/path',
    'aws configure set region eu-west-1',
    'docker run -u app:app nginx',
    'docker exec -u 1000:1000 box id',
    'sudo chown -R www-data:www-data /srv',
    'ls -lu a:b',
    'export MY_PATH=/opt/x',
    'PATH=/usr/bin:/bin make',
    'git log --format="%an" --author="bob"',
    'echo \'{"author": "bob", "auth_method": "sso"}\'',
    'curl https://hooks.slack.com/',
    'mongosh --port 27017 db',
    'zip -r out.zip dir',
    '7z x archive.7z -o/tmp/out',
    'unzip -o a.zip -d out',
    `docker run -u 'app:app group' img`,
    'echo hello | wc -c',
    'requests.get(u, auth=token_auth)',
  ];
  it.each(everyday)('leaves `%s` alone', (text) => expect(redact(text)).toBe(text));
});

describe('redact on huge input', () => {
  it('cuts text over the limit before redacting, so its cost stays bounded', () => {
    const out = redact(`mysql -pTopSecret1 ${'mysql '.repeat(20_000)}`);
    expect(out.length).toBeLessThan(MAX_REDACTED_CHARS + 20);
    expect(out).not.toContain('TopSecret1');
    expect(out.endsWith('… [cut]')).toBe(true);
  });
});

describe('looksLikeSecretValue', () => {
  const secret = [
    'ghp_abcdefghijklmnop1234',
    'github_pat_11ABCDEFG0123456789abcdef',
    'sk-proj-abcdefghijklmnop',
    'xoxp-1234567890-abcdef',
    'AKIAIOSFODNN7EXAMPLE',
    'glpat-abcdefghij0123456789',
    'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N',
    'postgres://u:pw@h/db',
    'https://user:p%40ss@example.com/x',
    '-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\n-----END RSA PRIVATE KEY-----',
  ];
  it.each(secret)('%s carries a credential', (v) => expect(looksLikeSecretValue(v)).toBe(true));
  const innocent = [
    '/usr/local/bin:/usr/bin:/bin',
    '/home/me',
    'en_US.UTF-8',
    'xterm-256color',
    'vim',
    'production',
    'https://example.com/x',
    'postgres://db.example/app',
    'git@github.com:me/repo.git',
    '',
    'task-list',
    'skip-this',
    '1000:1000',
  ];
  it.each(innocent)('%s does not', (v) => expect(looksLikeSecretValue(v)).toBe(false));
});
