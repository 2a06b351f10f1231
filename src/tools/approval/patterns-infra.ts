import type { Command } from "./commands.js";
import { abbreviationAware } from "./options.js";
import { hasFlag, normPath, operands, ROOT_TARGET } from "./targets.js";
import type { CommandPattern } from "./types.js";

/** Dangerous patterns about repositories, containers, clusters, clouds, releases and packages. */

const FORCE_PUSH = (c: Command): boolean =>
  c.args[0] === "push" &&
  (hasFlag(c.args.slice(1), "f", "force") || c.args.slice(1).some((a) => /^\+[^+]/.test(a)));
const PROTECTED_BRANCH = /(?:^|[:/+])(?:main|master|trunk|production|prod|release)$/;

export const INFRA_PATTERNS: readonly CommandPattern[] = abbreviationAware([
  {
    key: "git_push_mirror",
    description: "git push --mirror (makes the remote an exact copy, deleting its other branches)",
    class: "git",
    programs: ["git"],
    test: /^git push\b.*--mirror\b/,
  },
  {
    key: "repo_delete",
    description: "deleting a hosted repository (gh repo delete, glab repo delete)",
    class: "cloud",
    test: /^(?:gh|glab) repo delete\b/,
  },
  {
    key: "helm_uninstall",
    description: "uninstalling a Helm release (removes its workloads)",
    class: "cloud",
    programs: ["helm"],
    test: /^helm (?:uninstall|delete|del)\b/,
  },
  {
    key: "kubectl_drain",
    description: "draining or deleting a cluster node (evicts its workloads)",
    class: "cloud",
    programs: ["kubectl", "oc"],
    test: /^\S+ (?:drain|delete (?:node|nodes|no)\b)/,
  },
  {
    key: "docker_host_root",
    description: "a container with the host's root filesystem or full privileges (-v /:/host, --privileged)",
    class: "containers",
    programs: ["docker", "podman", "nerdctl"],
    test: (c) =>
      /^\S+ (?:container )?(?:run|create)\b/.test(c.text) &&
      (c.args.some((a) => a === "--privileged" || a === "--pid=host") ||
        c.args.some((a, i) => (c.args[i - 1] === "-v" || c.args[i - 1] === "--volume") && /^\/:/.test(a)) ||
        c.args.some((a) => /^(?:-v|--volume=)\/:/.test(a))),
  },
  {
    key: "kv_delete_all",
    description: "deleting every key of a key-value store (etcdctl del --prefix, consul kv delete -recurse)",
    class: "sql",
    test: /^etcdctl (?:.* )?del(?:ete)?\b.*(?:--prefix|--from-key)|^consul kv delete\b.*-recurse/,
  },
  {
    key: "rsync_delete",
    description: "rsync --delete into a folder outside the working directory (deletes what the source lacks)",
    class: "delete",
    programs: ["rsync"],
    test: (c) => {
      if (!c.args.some((a) => a.startsWith("--delete") || a === "--remove-source-files")) return false;
      const dest = operands(c.args).at(-1) ?? "";
      return (
        dest.startsWith("/") ||
        dest.startsWith("~") ||
        dest.startsWith("$") ||
        dest.includes(":") ||
        dest.includes("..")
      );
    },
  },
  {
    key: "extract_over_root",
    description: "extracting an archive over / or a system folder (tar -C /)",
    class: "system_config",
    programs: ["tar", "unzip", "bsdtar"],
    test: (c) => {
      const i = c.args.findIndex((a) => a === "-C" || a === "--directory" || a === "-d");
      const dir = i >= 0 ? c.args[i + 1] : c.args.find((a) => a.startsWith("--directory="))?.slice(12);
      return (
        dir !== undefined &&
        (ROOT_TARGET.test(normPath(dir)) || /^\/(?:etc|usr|bin|sbin|lib\w*|boot)(?:\/|$)/.test(dir))
      );
    },
  },
  {
    key: "git_force_push",
    description: "git push --force (overwrites the remote branch's history)",
    class: "git",
    programs: ["git"],
    test: FORCE_PUSH,
  },
  {
    key: "git_force_push_protected",
    description: "force push to main/master/production",
    class: "git",
    programs: ["git"],
    test: (c) =>
      c.args[0] === "push" &&
      (FORCE_PUSH(c) || c.args.some((a) => a.startsWith("--force-with-lease"))) &&
      operands(c.args.slice(1)).some((a) => PROTECTED_BRANCH.test(a)),
  },
  {
    key: "git_push_delete",
    description: "deleting a remote branch or tag (git push --delete / :branch)",
    class: "git",
    programs: ["git"],
    test: (c) =>
      c.args[0] === "push" &&
      (hasFlag(c.args, "d", "delete") || operands(c.args.slice(1)).some((a) => a.startsWith(":"))),
  },
  {
    key: "git_history_rewrite",
    description:
      "rewriting or pruning git history (filter-branch, filter-repo, reflog expire + gc --prune=now)",
    class: "git",
    programs: ["git"],
    test: /^git (?:filter-branch|filter-repo)\b|^git reflog expire\b.*--expire=(?:now|all)|^git gc\b.*--prune=now/,
  },
  {
    key: "docker_prune_all",
    description: "docker system/image/volume prune of everything, or removing volumes",
    class: "containers",
    programs: ["docker", "podman", "nerdctl"],
    test: (c) =>
      /^\S+ (?:system prune\b.*(?:-a\b|--all\b|--volumes\b)|volume (?:prune|rm)\b|image prune\b.*(?:-a\b|--all\b))/.test(
        c.text,
      ),
  },
  {
    key: "docker_rm_all",
    description: "removing or killing every container or image ($(docker ps -aq))",
    class: "containers",
    programs: ["docker", "podman", "nerdctl"],
    test: (c) =>
      /^\S+ (?:rm|rmi|kill|stop|container rm|image rm)\b/.test(c.text) &&
      c.inner.some((i) =>
        /^(?:docker|podman|nerdctl) (?:ps|images|container ls|image ls)\b.*-\w*q/.test(i.text),
      ),
  },
  {
    key: "compose_down_volumes",
    description: "docker compose down -v (deletes the project's volumes and their data)",
    class: "containers",
    test: /^(?:docker(?:-compose| compose)|podman-compose|podman compose) (?:.* )?down\b.*(?:-v\b|--volumes\b)/,
  },
  {
    key: "kubectl_delete_broad",
    description: "kubectl delete of a namespace, or of everything (--all, -A)",
    class: "cloud",
    programs: ["kubectl", "oc", "k"],
    test: (c) =>
      c.args.includes("delete") &&
      (c.args.some((a) => /^(?:ns|namespaces?)(?:\/|$)/.test(a)) ||
        c.args.some((a) => a === "--all" || a === "-A" || a === "--all-namespaces")),
  },
  {
    key: "infra_destroy",
    description: "destroying infrastructure (terraform/tofu/pulumi/cdk destroy, terraform apply -destroy)",
    class: "cloud",
    test: /^(?:terraform|tofu|terragrunt|pulumi|cdk|cdktf|sst|serverless|sls) (?:.* )?(?:destroy\b|apply\b.*-destroy\b|remove\b)/,
  },
  {
    key: "cloud_delete",
    description:
      "deleting cloud resources (aws ... delete-*/terminate-*, s3 rm --recursive, gcloud/az ... delete)",
    class: "cloud",
    test: /^aws \S+ (?:delete-|terminate-|deregister-|purge-)|^aws s3 (?:rm\b.*--recursive|rb\b)|^gsutil (?:-m )?(?:rm\b.*-r|rb\b)|^gcloud\b.* delete\b|^az\b.* delete\b|^doctl\b.* delete\b|^heroku (?:apps:destroy|pg:reset)\b/,
  },
  {
    key: "publish_package",
    description: "publishing a package or release (npm/cargo/twine/gem publish) cannot be undone",
    class: "publish",
    test: (c) =>
      !c.args.includes("--dry-run") &&
      !c.args.includes("-n") &&
      /^(?:npm (?:publish|unpublish|deprecate)|yarn (?:npm )?publish|pnpm publish|bun publish|cargo (?:publish|yank)|twine upload|gem (?:push|yank)|poetry publish|flit publish|uv publish|hatch publish|mvn\b.* deploy|gh release (?:create|delete)|dotnet nuget push)\b/.test(
        c.text,
      ),
  },
  {
    key: "package_remove",
    description: "removing system packages (apt remove/purge, dnf/yum remove, pacman -R, rpm -e)",
    class: "packages",
    test: /^(?:apt|apt-get|aptitude) (?:-\S+ )*(?:remove|purge|autoremove)\b|^(?:dnf|yum|zypper|microdnf) (?:-\S+ )*(?:remove|erase|autoremove)\b|^pacman (?:-\S+ )*-R|^rpm (?:-\S+ )*-e\b|^dpkg (?:-\S+ )*(?:-[rP]\b|--remove|--purge)|^brew (?:uninstall|remove|rm)\b.*--force|^snap remove\b/,
  },
]);
