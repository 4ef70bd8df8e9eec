const OS = new Set(['linux', 'darwin', 'win32', 'freebsd', 'openbsd', 'sunos', 'aix', 'android']);
const ARCH = new Set(['x64', 'arm64', 'arm', 'ia32', 'ppc64', 's390x', 'riscv64', 'loong64']);
const CI_VARS = ['CI', 'GITHUB_ACTIONS', 'GITLAB_CI', 'BUILDKITE', 'CIRCLECI', 'TRAVIS', 'JENKINS_URL', 'TEAMCITY_VERSION'];

export function baseProperties(input: { appVersion: string; platform: string; arch: string; nodeVersion: string; env: Record<string, string | undefined> }) {
  return {
    app_version: input.appVersion,
    os: OS.has(input.platform) ? input.platform : 'other',
    arch: ARCH.has(input.arch) ? input.arch : 'other',
    node_version: input.nodeVersion,
    is_ci: CI_VARS.some((name) => {
      const v = input.env[name];
      return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
    }),
  };
}
