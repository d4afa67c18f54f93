// The vendor CLIs that change state beyond this machine, as data: for each, how its verb is found, the verbs that only
// read (or touch only this machine: logins, local config, previews), the options naming where it acts, what counts as
// deleting and as destroying a whole system, and examples checked by one test (ruleExamples.test.ts). Any verb not
// listed as reading asks (remoteRules.ts).
import type { RuleId } from '../ruleIds.js';
import { isKnown, shown, type Arg } from '../scanTypes.js';

export interface RemoteCli {
  /** What it changes, as a reason says it: `GitHub`, `AWS`, `the cluster`. */
  touches: string;
  /** How many leading words make the verb (`gh pr merge`: 2); a function for verbs of varying depth. */
  depth?: number | ((words: string[]) => number);
  /** For CLIs whose groups nest (gcloud, az): the verb is the words up to the first that matches this. */
  verbs?: RegExp;
  /** Options that take a value (a value is not a word of the verb). */
  values?: RegExp;
  /** Options naming where it acts (namespace, project, stage, app, profile): they take a value, shown in reasons. */
  scope?: RegExp;
  /** Verbs (the verb's words joined by spaces) that only read, or change only this machine. */
  reads: RegExp;
  /** A reading verb that changes something in this call (`gh api -X POST`, `aws s3 cp` to a bucket); `rest` are the
   * words after the verb. */
  writes?: (verb: string, argv: Arg[], rest: Arg[]) => boolean;
  /** Options that make any verb change nothing (`--dry-run`, `--check`). */
  dryRun?: RegExp;
  /** Options that make even a reading verb a production change (`vercel --prod`). */
  production?: RegExp;
  /** With no verb at all: `vercel` alone deploys a preview (reads), `ansible-playbook` runs one (changes). */
  bare?: 'reads' | 'changes';
  /** Verbs that delete; said as deleting, under deleteRule (default cloud.destroy). */
  deletes?: RegExp;
  deleteRule?: RuleId;
  deleteNoun?: string;
  /** Verbs that destroy a whole system (a namespace, a database, a project, a stack): hardline in production. */
  destroys?: RegExp | ((verb: string, argv: Arg[], rest: Arg[]) => boolean);
  /**
   * A verb that chooses where the CLI's later commands act (a workspace, a context, a project), as the variable that
   * says the same and its value: a production one is a production signal for what follows in the command.
   */
  chooses?: (verb: string, argv: Arg[], rest: Arg[]) => [variable: string, value: string] | undefined;
  /** A target on this machine (a kind or minikube cluster): nothing asks. */
  local?: (argv: Arg[], flags: string[]) => boolean;
  /** What the verb acts on, for the reason, when it is not the first word after the verb. */
  what?: (argv: Arg[], rest: Arg[]) => string | undefined;
  /** Commands that must ask, and commands that must not (run in a project workspace). */
  asks: string[];
  quiet: string[];
}

/** The value after one of these options (or given inline with `=`), as written. */
function optionValue(argv: Arg[], names: RegExp): string | undefined {
  for (let i = 1; i < argv.length; i++) {
    const v = argv[i]!.value;
    const eq = v.indexOf('=');
    if (eq > 0 && names.test(v.slice(0, eq))) return v.slice(eq + 1);
    if (names.test(v) && argv[i + 1]) return shown(argv[i + 1]!);
  }
  return undefined;
}

const has = (argv: Arg[], re: RegExp): boolean => argv.some((a) => re.test(a.value));
const kubeLocal =
  /^(kind-.*|minikube|docker-desktop|docker-for-desktop|k3d-.*|rancher-desktop|colima.*|orbstack|microk8s)$/;
const kubeValues = new RegExp(
  '^(-f|--filename|-l|--selector|-o|--output|-c|--container|--field-selector|-p|--patch|--type|-k|--kustomize|' +
    '--timeout|--image|--replicas|--from-literal|--from-file|--clusterrole|--role|--user|--group|--serviceaccount|' +
    '--kubeconfig|-s|--server|--cluster|--as|--token|--template|--sort-by|--since|--tail)$',
);

/** AWS deletes of a whole database, cluster, stack or bucket. */
const awsDestroys = new RegExp(
  '^(rds delete-db-(instance|cluster)|dynamodb delete-table|s3 rb|cloudformation delete-stack|eks delete-cluster|' +
    'ecs delete-cluster|elasticache delete-(cache-)?cluster|redshift delete-cluster|docdb delete-db-cluster|' +
    'opensearch delete-domain|organizations close-account)$',
);
const flyGroups = new RegExp(
  '^(apps|secrets|scale|machine|machines|m|volumes|volume|vol|postgres|pg|ips|certs|config|auth|releases|redis|' +
    'tokens|orgs|image|wireguard|consul|mysql|ssh|checks|platform)$',
);
/** Ansible modules that only read; the default module (command) runs anything. */
const readingModules =
  /^(ping|setup|gather_facts|debug|stat|find|service_facts|package_facts|ansible\.builtin\.(ping|setup|stat))$/;

export const remoteClis: Record<string, RemoteCli> = {
  kubectl: {
    touches: 'the cluster',
    depth: (w) => (/^(rollout|auth|certificate|config|plugin|set|create|top|apply|alpha)$/.test(w[0] ?? '') ? 2 : 1),
    values: kubeValues,
    scope: /^(-n|--namespace|--context)$/,
    reads: new RegExp(
      '^(get|describe|logs|log|top( .*)?|explain|api-resources|api-versions|version|cluster-info|config( .*)?|' +
        'diff|auth( .*)?|wait|events|port-forward|proxy|completion|plugin( .*)?|kustomize|convert|exec|attach|' +
        'rollout (status|history)|apply view-last-applied|alpha .*|options)$',
    ),
    dryRun: /^--dry-run(=(client|server))?$/,
    deletes: /^(delete|drain|cordon|replace)$/,
    deleteRule: 'kube.destroy',
    deleteNoun: 'cluster resources',
    chooses: (verb, _argv, rest) =>
      verb === 'config use-context' && rest[0] ? ['KUBECONTEXT', rest[0].value] : undefined,
    // A namespace (or project), or everything of a kind.
    destroys: (verb, argv, rest) =>
      verb === 'delete' &&
      (/^(ns|namespaces?|projects?)$/.test(rest[0]?.value ?? '') || has(argv, /^(--all|-A|--all-namespaces)$/)),
    local: (argv) => {
      const ctx = optionValue(argv, /^--context$/);
      return ctx !== undefined && kubeLocal.test(ctx);
    },
    what: (argv, rest) => {
      const file = optionValue(argv, /^(-f|--filename|-k|--kustomize)$/);
      const words = rest.map(shown);
      const all = has(argv, /^(--all|-A|--all-namespaces)$/) ? ' --all' : '';
      return [file, ...words].filter(Boolean).join(' ') + all || undefined;
    },
    asks: [
      'kubectl apply -f deploy.yaml',
      'kubectl apply -f k8s/ --prune -l app=api',
      'kubectl scale deploy/web --replicas=5',
      'kubectl rollout restart deploy/api',
      'kubectl -n production set image deploy/api api=acme/api:1.4',
      'kubectl create secret generic db --from-literal=password=x',
      'kubectl delete pod web-1',
    ],
    quiet: [
      'kubectl get pods -A',
      'kubectl logs -f deploy/api -n production',
      'kubectl diff -f k8s/',
      'kubectl apply --dry-run=client -f k8s/',
      'kubectl rollout status deploy/api',
      'kubectl config use-context kind-dev',
      'kubectl --context kind-dev apply -f k8s/',
      'kubectl auth can-i create pods',
    ],
  },
  helm: {
    touches: 'the cluster',
    depth: 1,
    values: /^(-f|--values|--set|--set-string|--set-file|--version|--repo|-o|--output|--timeout|--kubeconfig)$/,
    scope: /^(-n|--namespace|--kube-context)$/,
    reads: new RegExp(
      '^(list|ls|status|get|history|template|lint|show|inspect|search|repo|dependency|dep|env|version|' +
        'help|completion|plugin|verify|pull|fetch|package|create|diff)$',
    ),
    dryRun: /^--dry-run(=(client|server|true))?$/,
    deletes: /^(uninstall|delete|del|un)$/,
    destroys: /^(uninstall|delete|del|un)$/,
    asks: ['helm upgrade --install api ./chart -n staging', 'helm rollback api 3', 'helm uninstall api -n staging'],
    quiet: [
      'helm list -A',
      'helm template api ./chart',
      'helm upgrade --install api ./chart --dry-run',
      'helm repo update',
    ],
  },
  terraform: {
    touches: 'the infrastructure terraform manages',
    depth: (w) => (/^(state|workspace|providers)$/.test(w[0] ?? '') ? 2 : 1),
    values: /^(-var|-target|-state|-state-out|-backup|-lock-timeout|-parallelism|-replace)$/,
    scope: /^(-var-file|-chdir)$/,
    reads: new RegExp(
      '^(plan|show|output|validate|fmt|init|providers( .*)?|version|graph|console|get|login|logout|test|' +
        'metadata( .*)?|' +
        'modules|workspace (list|show|select)|state (list|show|pull)|-help)$',
    ),
    deletes: /^(destroy|state rm|workspace delete)$/,
    destroys: /^destroy$/,
    chooses: (verb, _argv, rest) =>
      /^workspace (select|new)$/.test(verb) && rest[0] ? ['TF_WORKSPACE', rest[0].value] : undefined,
    what: () => undefined,
    asks: [
      'terraform apply -auto-approve',
      'terraform apply tfplan',
      'terraform destroy -auto-approve',
      'terraform state rm aws_instance.web',
      'terraform import aws_s3_bucket.b b',
    ],
    quiet: ['terraform plan -out tfplan', 'terraform init -upgrade', 'terraform output -json', 'terraform state list'],
  },
  pulumi: {
    touches: 'the infrastructure pulumi manages',
    depth: (w) => (/^(stack|config|plugin|state|org|policy|env)$/.test(w[0] ?? '') ? 2 : 1),
    values: /^(-C|--cwd|--config-file|-m|--message|--target|--parallel)$/,
    scope: /^(-s|--stack)$/,
    reads: new RegExp(
      '^(preview|stack (ls|output|select|history|export|graph|tag|init|ls)|stack|config( (get|set|ls|rm|cp|env))?|' +
        'whoami|version|about|logs|plugin (ls|install)|login|logout|new|install|convert|help|watch|org (get-default|' +
        'search)|env (get|ls|open))$',
    ),
    dryRun: /^(--preview-only)$/,
    deletes: /^(destroy|stack rm|state delete)$/,
    destroys: /^(destroy|stack rm)$/,
    chooses: (verb, argv, rest) => {
      const stack = rest[0]?.value ?? optionValue(argv, /^(-s|--stack)$/);
      return /^stack (select|init)$/.test(verb) && stack ? ['PULUMI_STACK', stack] : undefined;
    },
    what: () => undefined,
    asks: ['pulumi up --yes', 'pulumi destroy --yes', 'pulumi up -s prod -y', 'pulumi refresh --yes'],
    quiet: ['pulumi preview', 'pulumi stack ls', 'pulumi stack output', 'pulumi config set region us-east-1'],
  },
  gh: {
    touches: 'GitHub',
    depth: (w) => (/^(api|browse|status|completion|help|version|--version)$/.test(w[0] ?? '') ? 1 : 2),
    values: new RegExp(
      '^(-R|--repo|-b|--body|-t|--title|-F|--field|-f|--raw-field|-X|--method|-H|--header|-q|--jq|-L|--limit|-l|' +
        '--label|-a|--assignee|--json|--template|-B|--base|--head|-m|--milestone|-r|--reviewer|--notes|-n|--notes-' +
        'file|--ref|--target|-e|--env|-o|--org|-u|--user|-s|--state|-w|--workflow|--body-file|--input|-p|--project)$',
    ),
    reads: new RegExp(
      '^((pr|issue|run|release|repo|workflow|gist|label|project|secret|variable|ruleset|cache|codespace|search|' +
        'extension|alias|config|org|ssh-key|gpg-key|attestation|agent-task) (list|ls|view|diff|checks|status|watch|' +
        'download|clone|checkout|verify|get|search)|auth (status|login|logout|refresh|setup-git|switch|token)|' +
        'config (get|set|list|clear-cache)|extension (install|upgrade|exec|browse|search)|alias (set|delete|import)|' +
        'search .*|browse|status|completion|help|version|api|codespace (ssh|code|cp|ports|logs))$',
    ),
    // `gh api` reads unless told another method or given fields to send.
    writes: (verb, argv) =>
      verb === 'api' &&
      (argv.some((a, i) => /^(-X|--method)$/.test(argv[i - 1]?.value ?? '') && !/^(GET|HEAD)$/i.test(a.value)) ||
        has(argv, /^(-X|--method)=(?!GET|HEAD)|^(-f|-F|--field|--raw-field|--input)(=|$)/)),
    deletes: /^(repo|release|gist|label|secret|variable|cache|run|ruleset|ssh-key|gpg-key|codespace|project) delete$/,
    what: (argv, rest) => {
      const words = rest.map(shown);
      const admin = has(argv, /^--admin$/) ? ' as an admin, past branch protection' : '';
      return `${words.slice(0, 2).join(' ')}${admin}`.trim() || undefined;
    },
    asks: [
      'gh release create v1.2.0 dist/*.tgz --notes "fixes"',
      'gh repo delete acme/old --yes',
      'gh pr merge 12 --admin --squash',
      'gh secret set TOKEN --body x',
      'gh workflow run deploy.yml -f environment=production',
      'gh api -X DELETE repos/acme/web/branches/main/protection',
      'gh repo edit acme/web --visibility public',
      'gh gist create notes.md',
    ],
    quiet: [
      'gh pr list',
      'gh pr view 12',
      'gh run view 1 --log',
      'gh api repos/acme/web/pulls',
      'gh repo clone acme/web',
    ],
  },
  glab: {
    touches: 'GitLab',
    depth: (w) => (/^(api|status|help|version|ci)$/.test(w[0] ?? '') && w[0] !== 'ci' ? 1 : 2),
    values: /^(-R|--repo|-t|--title|-d|--description|-m|--message|-X|--method|-f|--field|-F|--raw-field)$/,
    reads: new RegExp(
      '^((mr|issue|release|repo|ci|pipeline|label|snippet|variable|schedule|cluster) (list|ls|view|diff|status|trace|' +
        'get|checkout|clone|download|lint)|auth (status|login|logout)|config (get|set)|api|help|version|status)$',
    ),
    deletes: /^\S+ delete$/,
    asks: ['glab mr merge 12 --yes', 'glab release create v1.0.0', 'glab ci run'],
    quiet: ['glab mr list', 'glab ci status', 'glab mr view 3'],
  },
  aws: {
    touches: 'AWS',
    depth: 2,
    values: /^(--region|--output|--query|--endpoint-url|--color|--ca-bundle|--cli-read-timeout|--cli-connect-timeout)$/,
    scope: /^(--profile)$/,
    reads: new RegExp(
      '^(\\S+ (describe|list|get|head|lookup|batch-get|search|scan|query|select|validate|estimate|simulate|test|' +
        'check|' +
        'detect|filter|tail|wait|download|view|preview|generate-presigned|verify|decode)[\\w-]*|s3 (ls|presign|cp|' +
        'sync)|configure( .*)?|sts (get-caller-identity|assume-role|get-session-token|decode-authorization-message)|' +
        'sso (login|logout)|logs tail|ecr get-login-password|help|--version|' +
        'cloudformation (package|validate-template)|' +
        'ssm (get-parameters?|get-parameters-by-path))$',
    ),
    // `aws s3 cp`/`sync` read when they download; to a bucket they change it.
    writes: (verb, _argv, rest) => /^s3 (cp|sync)$/.test(verb) && /^s3:\/\//.test(rest[1]?.value ?? ''),
    dryRun: /^--dryrun$/,
    deletes: /^\S+ (delete|terminate|remove|deregister|purge|rb|rm|drop)[\w-]*$/,
    destroys: (verb, argv) => awsDestroys.test(verb) || (verb === 's3 rm' && has(argv, /^--recursive$/)),
    what: (argv, rest) => {
      const id = argv.find((a, i) => /-(identifier|name|id|ids|arn)$/.test(argv[i - 1]?.value ?? '') && isKnown(a));
      return id ? id.value : rest[0] ? shown(rest[0]) : undefined;
    },
    asks: [
      'aws s3 sync ./public s3://acme-site --delete',
      'aws s3 cp .env s3://acme-public/',
      'aws iam create-access-key --user-name ci',
      'aws lambda update-function-code --function-name api --zip-file fileb://f.zip',
      'aws ec2 terminate-instances --instance-ids i-1',
    ],
    quiet: [
      'aws s3 ls',
      'aws s3 cp s3://acme-data/a.csv ./data/',
      'aws sts get-caller-identity',
      'aws ec2 describe-instances',
      'aws logs tail /aws/lambda/api --follow',
      'aws --profile prod rds describe-db-instances',
      'aws s3 sync ./site s3://acme-site --dryrun',
    ],
  },
  gcloud: {
    touches: 'Google Cloud',
    verbs: new RegExp(
      '^(list|describe|get-iam-policy|get-value|get|read|tail|browse|compare|wait|preview|validate|lint|explain|' +
        'search|ls|cat|export|print-settings|get-credentials|print-access-token|print-identity-token|info|version|' +
        'help|init|login|activate-service-account|create|delete|deploy|update|set|unset|add-iam-policy-binding|' +
        'remove-iam-policy-binding|set-iam-policy|patch|start|stop|reset|resize|restart|import|undelete|enable|' +
        'disable|apply|submit|cancel|rollback|promote|move|copy|rename|attach|detach|ssh|scp|execute|rm|cp|mv|' +
        'access|add|remove|replace|restore|upgrade|suspend|resume|purge|destroy|revoke|sign-url)$',
    ),
    depth: 1,
    values: /^(--format|--filter|--limit|--zone|--region|--image|--account|--configuration|--flatten|--sort-by)$/,
    scope: /^(--project)$/,
    reads: new RegExp(
      '^(config( .*)?|auth( .*)?|components( .*)?|init|info|version|help|topic( .*)?|cheat-sheet|(\\S+ )*(list|' +
        'describe|get-iam-policy|get-value|get|read|tail|browse|compare|wait|preview|validate|lint|explain|search|' +
        'ls|cat|export|print-settings|get-credentials|print-access-token|print-identity-token|sign-url))$',
    ),
    deletes: /(^| )(delete|remove|rm|purge|destroy)$/,
    destroys: /^(projects|sql instances|container clusters|spanner instances|firestore databases|run services) delete$/,
    chooses: (verb, _argv, rest) =>
      verb === 'config set' && rest[0]?.value === 'project' && rest[1]
        ? ['CLOUDSDK_CORE_PROJECT', rest[1].value]
        : undefined,
    asks: [
      'gcloud run deploy api --image gcr.io/acme/api:1 --region us-central1',
      'gcloud projects add-iam-policy-binding acme --member=user:x@acme.dev --role=roles/owner',
      'gcloud compute firewall-rules create allow-all --source-ranges 0.0.0.0/0',
      'gcloud compute instances delete vm-1',
    ],
    quiet: ['gcloud config list', 'gcloud projects list', 'gcloud run services describe api', 'gcloud auth list'],
  },
  gsutil: {
    touches: 'Google Cloud Storage',
    depth: (w) =>
      /^(acl|iam|defacl|lifecycle|web|versioning|cors|logging|label|retention|kms)$/.test(w[0] ?? '') ? 2 : 1,
    values: /^(-o|-h|-p)$/,
    reads: new RegExp(
      '^(ls|cat|du|stat|hash|version|help|cp|rsync|signurl|(acl|iam|defacl|lifecycle|web|versioning|' +
        'cors|logging|label|retention) get)$',
    ),
    writes: (verb, argv) => /^(cp|rsync)$/.test(verb) && /^gs:\/\//.test(argv[argv.length - 1]?.value ?? ''),
    deletes: /^(rm|rb)$/,
    destroys: /^(rm|rb)$/,
    asks: ['gsutil -m rsync -d -r ./dist gs://acme-www', 'gsutil iam ch allUsers:objectViewer gs://acme-data'],
    quiet: ['gsutil ls gs://acme-data', 'gsutil cp gs://acme-data/a.csv .'],
  },
  bq: {
    touches: 'BigQuery',
    depth: 1,
    values: /^(--project_id|--location|--format|--max_rows|-n)$/,
    reads: /^(ls|show|head|query|version|help|wait|get-iam-policy|shell)$/,
    deletes: /^(rm|truncate)$/,
    destroys: /^rm$/,
    asks: ['bq rm -r -f -d acme:analytics', 'bq load acme:ds.t data.csv'],
    quiet: ['bq ls', 'bq show acme:ds.t', 'bq query "SELECT 1"'],
  },
  az: {
    touches: 'Azure',
    verbs: new RegExp(
      '^(list|show|get|query|download|version|login|logout|find|help|wait|exists|tail|log|logs|browse|create|delete|' +
        'update|set|add|remove|deploy|start|stop|restart|deallocate|assign|import|purge|restore|run|invoke|reset|' +
        'upload|sync|swap|scale|attach|detach|enable|disable|rotate|renew|regenerate|connect|ssh|up|delete-batch|' +
        'upload-batch|download-batch|get-credentials)$',
    ),
    values: /^(-o|--output|--query|--only-show-errors|-l|--location)$/,
    scope: /^(-g|--resource-group|-n|--name|--subscription|--vault-name|--account-name)$/,
    reads: new RegExp(
      '^(account( .*)?|config( .*)?|extension( .*)?|login|logout|version|find|help|upgrade|bicep( .*)?|(\\S+ )*(list|' +
        'show|get|query|download|exists|tail|log|logs|browse|wait|get-credentials|show-deleted))$',
    ),
    deletes: /(^| )(delete|delete-batch|purge|remove)$/,
    destroys: /^(group|sql server|sql db|cosmosdb|aks|postgres server|mysql server|postgres flexible-server) delete$/,
    chooses: (verb, argv) => {
      const subscription = verb === 'account set' ? optionValue(argv, /^(-s|--subscription)$/) : undefined;
      return subscription ? ['AZURE_SUBSCRIPTION_ID', subscription] : undefined;
    },
    asks: [
      'az role assignment create --assignee x --role Owner',
      'az vm deallocate -g rg -n vm1',
      'az group delete -n rg',
    ],
    quiet: ['az account show', 'az group list -o table', 'az vm list', 'az aks get-credentials -g rg -n k'],
  },
  doctl: {
    touches: 'DigitalOcean',
    verbs: new RegExp(
      '^(list|ls|get|create|delete|rm|update|create-deployment|logs|spec|resize|power-off|power-on|' +
        'reboot|tag|attach|detach|add|remove|login|init|version|whoami)$',
    ),
    values: /^(-o|--output|--format|--context|-t|--access-token)$/,
    reads: /^(account( .*)?|auth( .*)?|version|(\S+ )*(list|ls|get|logs|spec|whoami|login|init)|registry login)$/,
    deletes: /(^| )(delete|rm)$/,
    destroys: /^(databases|kubernetes cluster|apps) (delete|rm)$/,
    asks: ['doctl apps create-deployment 3f2a', 'doctl compute droplet delete web-1 -f'],
    quiet: ['doctl compute droplet list', 'doctl apps list', 'doctl account get'],
  },
  vercel: {
    touches: 'Vercel',
    depth: (w) =>
      /^(env|domains|dns|certs|alias|project|projects|teams|secrets|git|integration)$/.test(w[0] ?? '') ? 2 : 1,
    values: /^(-t|--token|--scope|--cwd|-A|--local-config|--build-env|-b|-e|--env|-m|--meta|--target)$/,
    production: /^(--prod|--production|--target=production)$/,
    bare: 'reads',
    reads: new RegExp(
      '^(deploy|ls|list|inspect|logs|whoami|dev|build|link|login|logout|help|switch|pull|open|bisect|(env|domains|' +
        'dns|certs|alias|project|projects|teams|secrets) (ls|list|pull|inspect)|git (connect|disconnect))$',
    ),
    deletes: /^(rm|remove|(env|domains|dns|certs|alias|project|projects|secrets) (rm|remove))$/,
    asks: ['vercel --prod', 'vercel deploy --prod --yes', 'vercel env add DATABASE_URL production', 'vercel promote x'],
    quiet: ['vercel', 'vercel deploy', 'vercel ls', 'vercel env ls', 'vercel pull'],
  },
  netlify: {
    touches: 'Netlify',
    depth: 1,
    values: /^(-d|--dir|-s|--site|-a|--auth|-f|--functions|-m|--message|--alias|--context)$/,
    production: /^(--prod|-p|--prodIfUnlocked|--prod-if-unlocked)$/,
    bare: 'reads',
    reads: new RegExp(
      '^(deploy|status|sites:list|env:list|env:get|logs(:.*)?|watch|dev|build|link|unlink|login|logout|open(:.*)?|' +
        'help|functions:(list|serve|build|create|invoke)|serve|init|switch|completion|recipes.*|blobs:(get|list))$',
    ),
    deletes: /^(sites:delete|env:unset|blobs:delete)$/,
    destroys: /^sites:delete$/,
    asks: ['netlify deploy --prod --dir=dist', 'netlify env:set KEY value', 'netlify sites:delete x'],
    quiet: ['netlify deploy --dir=dist', 'netlify status', 'netlify dev'],
  },
  fly: {
    touches: 'Fly.io',
    depth: (w) => (flyGroups.test(w[0] ?? '') ? 2 : 1),
    values: /^(-c|--config|-r|--region|-i|--image|--vm-size|--org|-o|-t|--access-token)$/,
    scope: /^(-a|--app)$/,
    reads: new RegExp(
      '^(status|logs|info|version|doctor|dashboard|open|releases|history|ping|regions|platform .*|auth .*|' +
        '(apps|secrets|scale|machine|machines|m|volumes|volume|vol|ips|certs|releases|redis|tokens|orgs|checks|' +
        'image|wireguard|postgres|pg|mysql) (list|ls|show|status|check)|config (show|validate|env|save)|proxy|' +
        'console|help|launch --no-deploy)$',
    ),
    deletes:
      /^(apps|machine|machines|m|volumes|volume|vol|postgres|pg|redis|certs|ips) (destroy|delete|remove|rm|release)$/,
    destroys: /^(apps|postgres|pg) (destroy|delete)$/,
    asks: ['fly deploy', 'fly secrets set K=v', 'fly scale count 0', 'fly apps destroy acme-old --yes'],
    quiet: ['fly status', 'fly logs -a acme', 'fly apps list', 'fly secrets list'],
  },
  firebase: {
    touches: 'Firebase',
    depth: 1,
    values: /^(--only|--except|-m|--message|--token|--account)$/,
    scope: /^(-P|--project)$/,
    reads: new RegExp(
      '^(projects:list|apps:list|apps:sdkconfig|use|login(:.*)?|logout|init|emulators:.*|serve|open|help|' +
        'functions:log|functions:list|hosting:channel:(list|deploy|open)|hosting:sites:list|database:get|' +
        'database:profile|firestore:indexes|target(:.*)?|setup:.*|ext|ext:list|ext:info|remoteconfig:get|' +
        'crashlytics:.*|appdistribution:testers:list|experiments:list)$',
    ),
    deletes: new RegExp(
      '^(functions:delete|hosting:disable|database:remove|firestore:delete|hosting:channel:delete|' +
        'hosting:sites:delete|apps:remove|projects:delete)$',
    ),
    destroys: /^(firestore:delete|database:remove)$/,
    asks: ['firebase deploy', 'firebase deploy --only hosting', 'firebase functions:delete api'],
    quiet: ['firebase projects:list', 'firebase hosting:channel:deploy preview-42', 'firebase emulators:start'],
  },
  heroku: {
    touches: 'Heroku',
    depth: 1,
    values: /^(-r|--remote|-t|--team|--confirm|-s|--space|--size|-e|--env)$/,
    scope: /^(-a|--app)$/,
    reads: new RegExp(
      '^(logs|ps|ps:type|apps|apps:info|apps:list|config|config:get|releases|releases:info|addons|addons:info|' +
        'pg:info|pg:credentials:url|domains|auth(:.*)?|login|logout|whoami|status|help|git:remote|git:clone|access|' +
        'info|regions|stack|buildpacks|features|labs|spaces|teams|version|autocomplete|local(:.*)?|update|plugins.*)$',
    ),
    deletes:
      /^(apps:destroy|destroy|addons:destroy|pg:reset|domains:remove|ps:kill|access:remove|config:unset|pg:reset)$/,
    destroys: /^(apps:destroy|destroy|pg:reset|addons:destroy)$/,
    asks: [
      'heroku config:set SECRET=x -a acme',
      'heroku ps:scale web=0 -a acme',
      'heroku container:release web -a acme',
    ],
    quiet: ['heroku logs --tail -a acme', 'heroku ps -a acme', 'heroku apps'],
  },
  serverless: {
    touches: 'the serverless deployment',
    depth: (w) =>
      /^(deploy|invoke|plugin|config)$/.test(w[0] ?? '') && w[1] !== undefined && /^(list|function|local)$/.test(w[1])
        ? 2
        : 1,
    values: /^(-f|--function|-r|--region|-c|--config|--aws-profile|-p|--path|--param)$/,
    scope: /^(-s|--stage)$/,
    reads: new RegExp(
      '^(info|logs|print|package|invoke local|offline|plugin list|doctor|help|metrics|deploy list|' +
        'login|logout|dev|config)$',
    ),
    deletes: /^(remove)$/,
    destroys: /^remove$/,
    asks: ['serverless deploy --stage prod', 'sls remove -s dev', 'sls invoke -f hello'],
    quiet: ['serverless info --stage dev', 'sls invoke local -f hello', 'sls package'],
  },
  eb: {
    touches: 'Elastic Beanstalk',
    depth: 1,
    values: /^(-r|--region|--profile|-l|--label|-m|--message)$/,
    scope: /^(-e|--environment)$/,
    reads: new RegExp(
      '^(status|health|logs|list|events|init|open|console|platform|labs|use|printenv|appversion|local|' +
        'codesource|tags|ssh)$',
    ),
    deletes: /^(terminate)$/,
    destroys: /^terminate$/,
    asks: ['eb deploy acme-prod', 'eb setenv KEY=v', 'eb terminate acme-staging'],
    quiet: ['eb status', 'eb logs', 'eb list'],
  },
  'ansible-playbook': {
    touches: 'the hosts of its inventory',
    depth: 0,
    bare: 'changes',
    values: new RegExp(
      '^(-e|--extra-vars|-u|--user|-t|--tags|--skip-tags|-f|--forks|--vault-password-file|-k|--private-key|' +
        '-M|--module-path|--start-at-task|-c|--connection)$',
    ),
    scope: /^(-i|--inventory|-l|--limit)$/,
    reads: /^$/,
    dryRun: /^(--check|-C|--syntax-check|--list-hosts|--list-tasks|--list-tags)$/,
    what: (argv) => argv.slice(1).find((a) => /\.ya?ml$/.test(a.value))?.value,
    asks: ['ansible-playbook -i inventories/production site.yml', 'ansible-playbook site.yml --limit web'],
    quiet: ['ansible-playbook site.yml --check --diff', 'ansible-playbook site.yml --syntax-check'],
  },
  ansible: {
    touches: 'the hosts of its inventory',
    depth: 1,
    values: /^(-m|--module-name|-a|--args|-e|--extra-vars|-u|--user|-f|--forks|-b|--become-user|-k|--private-key)$/,
    scope: /^(-i|--inventory|-l|--limit)$/,
    reads: /^.*$/,
    // An ad-hoc run reads only with a module that reads; the default module (command) runs anything.
    writes: (_verb, argv) => {
      const m = optionValue(argv, /^(-m|--module-name)$/);
      return !readingModules.test(m ?? 'command');
    },
    dryRun: /^(--check|-C|--list-hosts)$/,
    asks: ['ansible all -i hosts -a "reboot"', 'ansible web -m shell -a "rm -rf /tmp/x"'],
    quiet: ['ansible all -m ping -i inventories/staging', 'ansible web -m setup'],
  },
  cap: {
    touches: 'the servers of the stage',
    depth: 2,
    reads: /^(-T|--tasks|-V|--version|doctor|\S+ (deploy:check|doctor|-T))$/,
    what: () => undefined,
    asks: ['cap production deploy', 'cap staging deploy:rollback'],
    quiet: ['cap -T'],
  },
  rclone: {
    touches: 'remote storage',
    depth: 1,
    values: /^(--config|--include|--exclude|--filter|--transfers|--checkers|--bwlimit|--max-age|--min-age|--log-file)$/,
    reads: new RegExp(
      '^(ls|lsd|lsl|lsf|lsjson|cat|check|cryptcheck|size|about|tree|version|config|listremotes|md5sum|sha1sum|' +
        'hashsum|ncdu|mount|serve|obscure|help|authorize|genautocomplete|selfupdate|copy|copyto|copyurl)$',
    ),
    // A copy to a remote (`remote:path`) changes it; one to a local directory only reads the remote.
    writes: (verb, argv) => /^copy/.test(verb) && /^[\w-]+:/.test(argv[argv.length - 1]?.value ?? ''),
    dryRun: /^(--dry-run|-n)$/,
    deletes: /^(delete|purge|deletefile|rmdir|rmdirs|cleanup|dedupe)$/,
    destroys: /^purge$/,
    asks: ['rclone sync ./backup remote:backup', 'rclone purge remote:old', 'rclone copy ./dist s3:acme-www'],
    quiet: ['rclone ls remote:backup', 'rclone copy remote:backup ./restore', 'rclone sync ./a remote:a --dry-run'],
  },
  vault: {
    touches: 'Vault',
    depth: (w) => (/^(kv|secrets|auth|policy|token|lease|audit|operator|namespace|plugin)$/.test(w[0] ?? '') ? 2 : 1),
    values: /^(-address|-namespace|-format|-field|-mount|-path|-method)$/,
    reads: new RegExp(
      '^(read|list|status|version|login|kv (get|list|metadata)|secrets list|auth list|policy (list|' +
        'read)|token lookup|lease lookup|audit list|path-help|print .*|namespace list|plugin list)$',
    ),
    deletes: /^(delete|kv (delete|destroy)|secrets disable|auth disable|policy delete|token revoke|lease revoke)$/,
    asks: ['vault kv put secret/app key=v', 'vault policy write admin admin.hcl'],
    quiet: ['vault status', 'vault kv list secret/'],
  },
  eksctl: {
    touches: 'AWS EKS',
    depth: 2,
    values: /^(-f|--config-file|-r|--region|--profile)$/,
    scope: /^(--cluster|-n|--name)$/,
    reads: /^(get \S+|utils describe-\S+|version|info|completion \S+|help)$/,
    deletes: /^delete \S+$/,
    destroys: /^delete cluster$/,
    asks: ['eksctl create cluster -f cluster.yaml', 'eksctl scale nodegroup --cluster c --nodes 0'],
    quiet: ['eksctl get clusters'],
  },
  argocd: {
    touches: 'Argo CD',
    depth: 2,
    values: /^(--server|--auth-token|-o|--output|--revision|--grpc-web-root-path)$/,
    reads: new RegExp(
      '^(app (list|get|diff|history|logs|manifests|resources|wait)|cluster list|proj (list|get)|repo list|' +
        'version|login|logout|context|account (get-user-info|list|can-i)|relogin)$',
    ),
    deletes: /^\S+ (delete|rm)$/,
    asks: ['argocd app sync api', 'argocd app rollback api 3'],
    quiet: ['argocd app list', 'argocd app diff api'],
  },
  flux: {
    touches: 'the cluster',
    depth: 1,
    values: /^(-n|--namespace|--context|--kubeconfig)$/,
    reads: /^(get|logs|check|version|tree|trace|stats|diff|export|events|completion|build|help)$/,
    deletes: /^(delete|uninstall)$/,
    asks: ['flux reconcile kustomization apps', 'flux suspend kustomization apps'],
    quiet: ['flux get all', 'flux logs'],
  },
  wrangler: {
    touches: 'Cloudflare',
    depth: (w) =>
      /^(kv|kv:namespace|kv:key|r2|d1|secret|pages|queues|vectorize|deployments|versions)$/.test(w[0] ?? '') ? 2 : 1,
    values: /^(-c|--config|-e|--env|--name|--binding|--namespace-id)$/,
    reads: new RegExp(
      '^(dev|whoami|login|logout|tail|types|docs|version|init|generate|deployments (list|view)|secret list|' +
        'd1 (list|info)|kv (namespace|key) list|r2 bucket list|pages (dev|project list|deployment list)|' +
        'versions (list|view))$',
    ),
    deletes: /^(delete|\S+ delete)$/,
    asks: [
      'wrangler deploy',
      'wrangler secret put API_KEY',
      'wrangler d1 execute db --remote --command "DELETE FROM t"',
    ],
    quiet: ['wrangler dev', 'wrangler whoami', 'wrangler tail'],
  },
  supabase: {
    touches: 'the Supabase project',
    depth: 2,
    values: /^(--project-ref|-p|--password|--db-url|--workdir|-o|--output)$/,
    reads: new RegExp(
      '^(status|start|stop|login|logout|link|init|db (diff|lint|dump|start)|gen \\S+|functions (serve|list|new|' +
        'download)|migration (list|new|fetch)|projects list|secrets list|inspect \\S+|services|test \\S+)$',
    ),
    // db reset is databaseRules' (it empties the database); here it changes the linked project when told so.
    deletes: /^(functions|projects|secrets|branches|storage) (delete|unset|rm)$/,
    asks: ['supabase db push', 'supabase functions deploy api'],
    quiet: ['supabase status', 'supabase start', 'supabase db diff'],
  },
  cdk: {
    touches: 'the infrastructure the CDK app manages',
    depth: 1,
    values: /^(-a|--app|-c|--context|--profile|-o|--output|--require-approval|--parameters)$/,
    reads: new RegExp(
      '^(synth|synthesize|diff|ls|list|doctor|context|docs|init|metadata|acknowledge|ack|notices|version|' +
        'help|watch --no-deploy)$',
    ),
    deletes: /^destroy$/,
    destroys: /^destroy$/,
    asks: ['cdk deploy --all --require-approval never', 'cdk destroy --force'],
    quiet: ['cdk synth', 'cdk diff'],
  },
  railway: {
    touches: 'Railway',
    depth: (w) => (/^(variables|environment|domain|service|volume)$/.test(w[0] ?? '') ? 2 : 1),
    values: /^(-s|--service|-e|--environment)$/,
    reads: new RegExp(
      '^(status|logs|whoami|list|link|login|logout|open|run|shell|init|docs|help|version|(variables|' +
        'environment|service|volume)( (list|ls))?)$',
    ),
    deletes: /^(delete|down)$/,
    asks: ['railway up', 'railway variables set K=v'],
    quiet: ['railway status', 'railway logs'],
  },
  vagrant: {
    touches: 'a virtual machine',
    depth: (w) => (/^(box|snapshot|plugin|cloud)$/.test(w[0] ?? '') ? 2 : 1),
    reads: new RegExp(
      '^(status|global-status|ssh|ssh-config|version|validate|port|help|init|up|halt|reload|provision|' +
        'resume|suspend|rdp|box (list|add|outdated|update)|snapshot (list|save|push)|plugin (list|install))$',
    ),
    deletes: /^(destroy|box (remove|prune)|snapshot (delete|restore|pop))$/,
    deleteNoun: 'a virtual machine or what it held',
    asks: ['vagrant destroy -f', 'vagrant box remove ubuntu/jammy64'],
    quiet: ['vagrant up', 'vagrant status', 'vagrant ssh'],
  },
  multipass: {
    touches: 'a virtual machine',
    depth: 1,
    reads: new RegExp(
      '^(list|ls|info|find|version|exec|shell|sh|launch|start|stop|restart|suspend|mount|umount|transfer|' +
        'get|networks|aliases|alias|help|authenticate)$',
    ),
    deletes: /^(delete|purge|recover)$/,
    deleteNoun: 'virtual machines',
    asks: ['multipass delete --purge dev', 'multipass purge'],
    quiet: ['multipass list', 'multipass launch --name dev'],
  },
  virsh: {
    touches: 'a virtual machine',
    depth: 1,
    reads: new RegExp(
      '^(list|dominfo|domstate|domblklist|domiflist|dumpxml|net-list|net-info|pool-list|pool-info|' +
        'vol-list|vol-info|nodeinfo|version|capabilities|console|start|help|uri|hostname|snapshot-list)$',
    ),
    deletes: /^(destroy|undefine|vol-delete|pool-delete|pool-destroy|net-destroy|net-undefine|snapshot-delete)$/,
    deleteNoun: 'a virtual machine or its storage',
    asks: ['virsh undefine web1 --remove-all-storage', 'virsh shutdown web1'],
    quiet: ['virsh list --all', 'virsh start web1'],
  },
  vboxmanage: {
    touches: 'a virtual machine',
    depth: 1,
    reads: /^(list|showvminfo|showmediuminfo|--version|-v|startvm|metrics|guestproperty|debugvm|help|extpack)$/,
    deletes: /^(unregistervm|closemedium|snapshot)$/,
    deleteNoun: 'a virtual machine or its disks',
    asks: ['VBoxManage unregistervm dev-vm --delete', 'VBoxManage controlvm dev poweroff'],
    quiet: ['VBoxManage list vms', 'VBoxManage startvm dev --type headless'],
  },
};
remoteClis.oc = { ...remoteClis.kubectl!, asks: ['oc delete project old'], quiet: ['oc get pods', 'oc project dev'] };
remoteClis.oc.reads = new RegExp(
  `${remoteClis.kubectl!.reads.source.slice(0, -2)}|project|projects|whoami|status|login|logout)$`,
);
remoteClis.tofu = { ...remoteClis.terraform!, asks: ['tofu apply -auto-approve'], quiet: ['tofu plan'] };
remoteClis.flyctl = { ...remoteClis.fly!, asks: ['flyctl deploy --app acme'], quiet: ['flyctl status'] };
remoteClis.sls = { ...remoteClis.serverless!, asks: ['sls deploy -s production'], quiet: ['sls info'] };
