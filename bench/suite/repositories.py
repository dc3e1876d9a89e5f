"""The repository each suite project's files come from, written into its tree's `.orion.toml`
as the `repository` setting — what a clone's git remote tells `orion index` in a real
project, which the trees (copies, not clones) lack. A link to one of the repository's files by
its web address (`https://github.com/emberjs/rfcs/blob/master/text/0226-named-blocks.md`)
then names the file.

    python bench/suite/repositories.py SUITE                  # every project of SUITE listed here
    python bench/suite/repositories.py SUITE --projects keep,runbooks
    python bench/suite/repositories.py SUITE --remove          # the trees as they were built

Then `orion index --root SUITE/P` resolves every link again (nothing is parsed or embedded).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

# project -> the repository its tree is built from (bench/README.md's clone commands); the
# projects built from several collections, from a site's copy of another repository's files
# (Cosmos: cosmos-sdk-docs) or from a dataset (SciFact, the sample) are not listed
REPOSITORIES = {
    "aips": "https://github.com/aptos-foundation/AIPs",
    "argocd": "https://github.com/argoproj/argo-cd",
    "argowf": "https://github.com/argoproj/argo-workflows",
    "astro": "https://github.com/withastro/docs",
    "astroroadmap": "https://github.com/withastro/roadmap",
    "babel": "https://github.com/babel/website",
    "basecamp": "https://github.com/basecamp/handbook",
    "bazelprop": "https://github.com/bazelbuild/proposals",
    "biome": "https://github.com/biomejs/website",
    "caddy": "https://github.com/caddyserver/website",
    "capi": "https://github.com/kubernetes-sigs/cluster-api",
    "cargo": "https://github.com/rust-lang/cargo",
    "cdkrfcs": "https://github.com/aws/aws-cdk-rfcs",
    "ceps": "https://github.com/conda/ceps",
    "ciliumcfps": "https://github.com/cilium/design-cfps",
    "cips": "https://github.com/cardano-foundation/CIPs",
    "cometbft": "https://github.com/cometbft/cometbft",
    "cosmos": "https://github.com/cosmos/cosmos-sdk-docs",
    "crossplane": "https://github.com/crossplane/crossplane",
    "csharplang": "https://github.com/dotnet/csharplang",
    "cspecs": "https://github.com/ethereum/consensus-specs",
    "dartlang": "https://github.com/dart-lang/language",
    "deno": "https://github.com/denoland/docs",
    "devguide": "https://github.com/python/devguide",
    "discordapi": "https://github.com/discord/discord-api-docs",
    "dockercli": "https://github.com/docker/cli",
    "dotnetdesigns": "https://github.com/dotnet/designs",
    "drizzle": "https://github.com/drizzle-team/drizzle-orm-docs",
    "eeps": "https://github.com/erlang/eep",
    "eips": "https://github.com/ethereum/EIPs",
    "elixir": "https://github.com/elixir-lang/elixir",
    "ember": "https://github.com/emberjs/rfcs",
    "eslintdocs": "https://github.com/eslint/eslint",
    "express": "https://github.com/expressjs/expressjs.com",
    "fastapi": "https://github.com/fastapi/fastapi",
    "fastify": "https://github.com/fastify/fastify",
    "fips": "https://github.com/filecoin-project/FIPs",
    "flask": "https://github.com/pallets/flask",
    "fluentd": "https://github.com/fluent/fluentd-docs-gitbook",
    "gateway": "https://github.com/kubernetes-sigs/gateway-api",
    "ghcprop": "https://github.com/ghc-proposals/ghc-proposals",
    "goproposal": "https://github.com/golang/proposal",
    "govuk": "https://github.com/alphagov/govuk-developer-docs",
    "govukaws": "https://github.com/alphagov/govuk-aws",
    "grpc": "https://github.com/grpc/proposal",
    "handbook": "https://github.com/18F/handbook",
    "hass": "https://github.com/home-assistant/architecture",
    "helm": "https://github.com/helm/helm-www",
    "homebrew": "https://github.com/Homebrew/brew",
    "hono": "https://github.com/honojs/website",
    "hugo": "https://github.com/gohugoio/hugoDocs",
    "jekyll": "https://github.com/jekyll/jekyll",
    "jeps": "https://github.com/jupyter/enhancement-proposals",
    "jest": "https://github.com/jestjs/jest",
    "k8scomm": "https://github.com/kubernetes/community",
    "k8sdocs": "https://github.com/kubernetes/website",
    "keep": "https://github.com/Kotlin/KEEP",
    "libp2p": "https://github.com/libp2p/specs",
    "mastodon": "https://github.com/mastodon/documentation",
    "mkmat": "https://github.com/squidfunk/mkdocs-material",
    "modplat": "https://github.com/ministryofjustice/modernisation-platform",
    "msc": "https://github.com/matrix-org/matrix-spec-proposals",
    "myst": "https://github.com/jupyter-book/mystmd",
    "mikroorm": "https://github.com/mikro-orm/mikro-orm",
    "nearneps": "https://github.com/near/NEPs",
    "neps": "https://github.com/numpy/numpy",
    "nips": "https://github.com/nostr-protocol/nips",
    "nixrfcs": "https://github.com/NixOS/rfcs",
    "nodebp": "https://github.com/goldbergyoni/nodebestpractices",
    "nomicon": "https://github.com/rust-lang/nomicon",
    "npmrfcs": "https://github.com/npm/rfcs",
    "nushell": "https://github.com/nushell/nushell.github.io",
    "pnpm": "https://github.com/pnpm/pnpm.io",
    "nuxt": "https://github.com/nuxt/nuxt",
    "obsidian": "https://github.com/obsidianmd/obsidian-help",
    "otel": "https://github.com/open-telemetry/opentelemetry-specification",
    "oteps": "https://github.com/open-telemetry/oteps",
    "peps": "https://github.com/python/peps",
    "playbook": "https://github.com/microsoft/code-with-engineering-playbook",
    "pnpmdocs": "https://github.com/pnpm/pnpm.io",
    "polkadot": "https://github.com/polkadot-fellows/RFCs",
    "postmortems": "https://github.com/icco/postmortems",
    "prettier": "https://github.com/prettier/prettier",
    "prometheus": "https://github.com/prometheus/docs",
    "pydantic": "https://github.com/pydantic/pydantic",
    "rbe": "https://github.com/rust-lang/rust-by-example",
    "reactdev": "https://github.com/reactjs/react.dev",
    "reactrouter": "https://github.com/remix-run/react-router",
    "redux": "https://github.com/reduxjs/redux",
    "rfcs": "https://github.com/rust-lang/rfcs",
    "rtk": "https://github.com/reduxjs/redux-toolkit",
    "runbooks": "https://github.com/openshift/runbooks",
    "rustbook": "https://github.com/rust-lang/book",
    "rustcdev": "https://github.com/rust-lang/rustc-dev-guide",
    "rustref": "https://github.com/rust-lang/reference",
    "rustup": "https://github.com/rust-lang/rustup",
    "sequelize": "https://github.com/sequelize/website",
    "simd": "https://github.com/solana-foundation/solana-improvement-documents",
    "sips": "https://github.com/scala/docs.scala-lang",
    "solid": "https://github.com/solidjs/solid-docs",
    "starlight": "https://github.com/withastro/starlight",
    "stellar": "https://github.com/stellar/stellar-protocol",
    "svelte": "https://github.com/sveltejs/svelte",
    "sveltekit": "https://github.com/sveltejs/kit",
    "swift": "https://github.com/swiftlang/swift-evolution",
    "swiftbook": "https://github.com/swiftlang/swift-book",
    "tekton": "https://github.com/tektoncd/community",
    "tfrfcs": "https://github.com/tensorflow/community",
    "tldr": "https://github.com/tldr-pages/tldr",
    "tofu": "https://github.com/opentofu/opentofu",
    "tokio": "https://github.com/tokio-rs/website",
    "traefik": "https://github.com/traefik/traefik",
    "trpc": "https://github.com/trpc/trpc",
    "typescript": "https://github.com/microsoft/TypeScript-Website",
    "uv": "https://github.com/astral-sh/uv",
    "vitest": "https://github.com/vitest-dev/vitest",
    "vue": "https://github.com/vuejs/docs",
    "vuerfcs": "https://github.com/vuejs/rfcs",
    "webpack": "https://github.com/webpack/webpack.js.org",
    "wezterm": "https://github.com/wezterm/wezterm",
}
_LINE = re.compile(r"^repository\s*=.*\n?", re.MULTILINE)


def write(tree: Path, address: str | None) -> None:
    """``tree``'s .orion.toml with ``repository = address`` (None: without the setting),
    its other lines kept; the file removed when nothing is left."""
    conf = tree / ".orion.toml"
    text = _LINE.sub("", conf.read_text()) if conf.exists() else ""
    if address is not None:
        text = f'repository = "{address}"\n' + text
    if text.strip():
        conf.write_text(text)
    elif conf.exists():
        conf.unlink()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("suite", type=Path)
    ap.add_argument("--projects", default=None, help="comma-separated (default: every listed project SUITE holds)")
    ap.add_argument("--remove", action="store_true", help="take the setting out again")
    args = ap.parse_args()
    names = args.projects.split(",") if args.projects else sorted(REPOSITORIES)
    for name in names:
        if name not in REPOSITORIES:
            sys.exit(f"{name}: no repository listed for it in {Path(__file__).name}")
        tree = args.suite / name
        if not tree.is_dir():
            if args.projects:
                sys.exit(f"{tree}: no such tree")
            continue
        write(tree, None if args.remove else REPOSITORIES[name])
        print(f"{name}\t{'-' if args.remove else REPOSITORIES[name]}")


if __name__ == "__main__":
    main()
