"""A project's documentation folder as an OrionFS project tree, kept as a user would keep
it: the site's pages copied byte for byte under one stage folder, for judging orion on
projects no default was chosen on.

    git clone https://github.com/reduxjs/redux /tmp/src/redux
    git -C /tmp/src/redux checkout 3084fc33bb23ab4cab4796172eafe342da4e73d9
    python bench/suite/build_docsite.py /tmp/src/redux --name redux --out /tmp/suite/redux

    git clone https://github.com/fastify/fastify /tmp/src/fastify
    git -C /tmp/src/fastify checkout 83e69762aff047940b376fc2a266d143499ef727
    python bench/suite/build_docsite.py /tmp/src/fastify --name fastify --out /tmp/suite/fastify

    git clone https://github.com/gohugoio/hugoDocs /tmp/src/hugodocs
    git -C /tmp/src/hugodocs checkout 1c613349f
    python bench/suite/build_docsite.py /tmp/src/hugodocs --docs content/en --name hugo --out /tmp/suite/hugo

    git clone https://github.com/rust-lang/book /tmp/src/rustbook
    git -C /tmp/src/rustbook checkout 917544888a55e4da7109bdba8c88c893c0da70f4
    python bench/suite/build_docsite.py /tmp/src/rustbook --docs src --name rustbook --out /tmp/suite/rustbook

    git clone https://github.com/obsidianmd/obsidian-help /tmp/src/obsidian
    git -C /tmp/src/obsidian checkout fa179e91e86eaff5859226cc045c81000d64e3cd
    python bench/suite/build_docsite.py /tmp/src/obsidian --docs en --name obsidian --out /tmp/suite/obsidian

    git clone https://github.com/18F/handbook /tmp/src/handbook
    git -C /tmp/src/handbook checkout 1e4955634d0369f17e5bbc0ebbf8f62e2a3dfe4b
    python bench/suite/build_docsite.py /tmp/src/handbook --docs pages --name handbook --out /tmp/suite/handbook

    git clone https://github.com/vitejs/vite /tmp/src/vite
    git -C /tmp/src/vite checkout a98c8d95d552c6fa98ab66fb810f5b39ad5abf49
    python bench/suite/build_docsite.py /tmp/src/vite --name vite --out /tmp/suite/vite

    git clone https://github.com/wikimedia/mediawiki-extensions-Wikibase /tmp/src/wikibase
    git -C /tmp/src/wikibase checkout 3ffc6928d0f455472225716263081965bc1061ac
    python bench/suite/build_docsite.py /tmp/src/wikibase --name wikibase --out /tmp/suite/wikibase

    git clone https://github.com/pypa/packaging.python.org /tmp/src/packaging
    git -C /tmp/src/packaging checkout ab4994857826246587d993862fd4097e36568080
    python bench/suite/build_docsite.py /tmp/src/packaging --docs source --suffixes .rst --name packaging --out /tmp/suite/packaging

    git clone https://github.com/opendatahub-io/architecture-decision-records /tmp/src/odh
    git -C /tmp/src/odh checkout 6325c10cd2130be1adee9e3689f5692b34a596ba
    python bench/suite/build_docsite.py /tmp/src/odh --docs architecture-decision-records --name odh --out /tmp/suite/odh

    git clone https://github.com/prometheus/docs /tmp/src/prometheus
    git -C /tmp/src/prometheus checkout c105550aad07161f62d02e305ed09799ec6025fa
    python bench/suite/build_docsite.py /tmp/src/prometheus --docs docs --name prometheus --out /tmp/suite/prometheus

    git clone https://github.com/python/devguide /tmp/src/devguide
    git -C /tmp/src/devguide checkout 0d5fbc08982dcc4ef2057ea7919e986465b44182
    python bench/suite/build_docsite.py /tmp/src/devguide --docs . --suffixes .rst --name devguide --out /tmp/suite/devguide

    git clone https://github.com/grpc/proposal /tmp/src/grpc
    git -C /tmp/src/grpc checkout 1fd061ad8e7c46422b326e5a60cf68d042476205
    python bench/suite/build_docsite.py /tmp/src/grpc --docs . --name grpc --out /tmp/suite/grpc

    git clone https://github.com/goldbergyoni/nodebestpractices /tmp/src/nodebp
    git -C /tmp/src/nodebp checkout dc3d60c29d5483d9ea99cf261bbd6203516a2ba7
    python bench/suite/build_docsite.py /tmp/src/nodebp --docs sections --name nodebp --out /tmp/suite/nodebp

    git clone https://github.com/home-assistant/architecture /tmp/src/hass
    git -C /tmp/src/hass checkout be288928486f8539345b5be804778a4f24e55ca7
    python bench/suite/build_docsite.py /tmp/src/hass --docs adr --name hass --out /tmp/suite/hass

    git clone https://github.com/golang/proposal /tmp/src/goproposal
    git -C /tmp/src/goproposal checkout f6e2e6b7f89c932d16aaa20b2aabddd599e5b468
    python bench/suite/build_docsite.py /tmp/src/goproposal --docs design --name goproposal --out /tmp/suite/goproposal

    git clone https://github.com/tldr-pages/tldr /tmp/src/tldr
    git -C /tmp/src/tldr checkout 08e345f42639f67d99282813247ac670dc6e87cb
    python bench/suite/build_docsite.py /tmp/src/tldr --docs pages --name tldr --out /tmp/suite/tldr

    git clone https://github.com/open-telemetry/opentelemetry-specification /tmp/src/otel
    git -C /tmp/src/otel checkout 1377f53b2bc0683c45169b8f20fd973eb4d59419
    python bench/suite/build_docsite.py /tmp/src/otel --docs . --name otel --out /tmp/suite/otel

    git clone https://github.com/vuejs/docs /tmp/src/vue
    git -C /tmp/src/vue checkout 01e098a967951ea92d09b100b8e7d82c7a3369a2
    python bench/suite/build_docsite.py /tmp/src/vue --docs src --name vue --out /tmp/suite/vue

    git clone https://github.com/rust-lang/cargo /tmp/src/cargo
    git -C /tmp/src/cargo checkout af373f761aa4e42b093c2e453078fd73c8ce54dd
    python bench/suite/build_docsite.py /tmp/src/cargo --docs doc/book/src --name cargo --out /tmp/suite/cargo

    git clone https://github.com/ethereum/EIPs /tmp/src/eips
    git -C /tmp/src/eips checkout f767a1e8078e17c9b381a91d35a09492189ede1b
    python bench/suite/build_docsite.py /tmp/src/eips --docs EIPS --name eips --out /tmp/suite/eips

    git clone https://github.com/fastapi/fastapi /tmp/src/fastapi
    git -C /tmp/src/fastapi checkout c3f316b7e814667e8ee81e03a7330d00ee61e45c
    python bench/suite/build_docsite.py /tmp/src/fastapi --docs docs/en/docs --name fastapi --out /tmp/suite/fastapi

    git clone https://github.com/cosmos/cosmos-sdk-docs /tmp/src/cosmos
    git -C /tmp/src/cosmos checkout 4845163da4e7c54b09888ca74bf42bb18fe22e4a
    python bench/suite/build_docsite.py /tmp/src/cosmos --docs docs/build/architecture --name cosmos --out /tmp/suite/cosmos

    git clone https://github.com/reactjs/react.dev /tmp/src/reactdev
    git -C /tmp/src/reactdev checkout 12d692da47e77cdc558b928fcfbaf4e71c6d0cec
    python bench/suite/build_docsite.py /tmp/src/reactdev --docs src/content --name reactdev --out /tmp/suite/reactdev

    git clone https://github.com/Kotlin/KEEP /tmp/src/keep
    git -C /tmp/src/keep checkout 974e3d22d6f2d06ed0be3256e8a79905a9522a3e
    python bench/suite/build_docsite.py /tmp/src/keep --docs proposals --name keep --out /tmp/suite/keep

    git clone https://github.com/sveltejs/svelte /tmp/src/svelte
    git -C /tmp/src/svelte checkout 15720b16a5ef33e3e1f4301c77b94ec375070e73
    python bench/suite/build_docsite.py /tmp/src/svelte --docs documentation/docs --name svelte --out /tmp/suite/svelte

    git clone https://github.com/dotnet/designs /tmp/src/dotnetdesigns
    git -C /tmp/src/dotnetdesigns checkout 3cca817bc9924f27a082ac44beb3ddca0232e215
    python bench/suite/build_docsite.py /tmp/src/dotnetdesigns --docs . --name dotnetdesigns --out /tmp/suite/dotnetdesigns

    git clone https://github.com/pydantic/pydantic /tmp/src/pydantic
    git -C /tmp/src/pydantic checkout 2151025aa51263f3016502b00010b78e4481eaa1
    python bench/suite/build_docsite.py /tmp/src/pydantic --docs docs --name pydantic --out /tmp/suite/pydantic

    git clone --no-checkout https://github.com/numpy/numpy /tmp/src/neps
    git -C /tmp/src/neps sparse-checkout set doc/neps && git -C /tmp/src/neps checkout 1f90bbb55e65e7de68921bc3f1a2d94492fdf689
    python bench/suite/build_docsite.py /tmp/src/neps --docs doc/neps --suffixes .rst --name neps --out /tmp/suite/neps

    git clone https://github.com/emberjs/rfcs /tmp/src/ember
    git -C /tmp/src/ember checkout 5208fbf3d43e154488ab8c9b9b10f2b8eb447495
    python bench/suite/build_docsite.py /tmp/src/ember --docs text --name ember --out /tmp/suite/ember

    git clone https://github.com/dotnet/csharplang /tmp/src/csharplang
    git -C /tmp/src/csharplang checkout f445f642755a28631b7e37db01f6373c437159c3
    python bench/suite/build_docsite.py /tmp/src/csharplang --docs . --name csharplang --out /tmp/suite/csharplang

    git clone https://github.com/rust-lang/rustc-dev-guide /tmp/src/rustcdev
    git -C /tmp/src/rustcdev checkout 2cbf04342b4611800be07d4942db42be824cd899
    python bench/suite/build_docsite.py /tmp/src/rustcdev --docs src --name rustcdev --out /tmp/suite/rustcdev

    git clone -b 13.x https://github.com/laravel/docs /tmp/src/laravel
    git -C /tmp/src/laravel checkout 86077535bbfdc2ab29cd9f202ee1ab3e7e6e18e6
    python bench/suite/build_docsite.py /tmp/src/laravel --docs . --name laravel --out /tmp/suite/laravel

    git clone https://github.com/nushell/nushell.github.io /tmp/src/nushell
    git -C /tmp/src/nushell checkout 72e298f7d579c20cebede45c861d63cbb689838f
    python bench/suite/build_docsite.py /tmp/src/nushell --docs . --name nushell --out /tmp/suite/nushell

    git clone https://github.com/libp2p/specs /tmp/src/libp2p
    git -C /tmp/src/libp2p checkout 7740c076350b6636b868a9e4a411280eea34d335
    python bench/suite/build_docsite.py /tmp/src/libp2p --docs . --name libp2p --out /tmp/suite/libp2p

    git clone https://github.com/ethereum/consensus-specs /tmp/src/cspecs
    git -C /tmp/src/cspecs checkout a08d8a6e2b45f0b8c0d379abc15583427c643689
    python bench/suite/build_docsite.py /tmp/src/cspecs --docs specs --name cspecs --out /tmp/suite/cspecs

    git clone https://github.com/cardano-foundation/CIPs /tmp/src/cips
    git -C /tmp/src/cips checkout eb4510345f0ce7c014a7d83f85d43e86c537897f
    python bench/suite/build_docsite.py /tmp/src/cips --docs . --name cips --out /tmp/suite/cips

    git clone https://github.com/astral-sh/uv /tmp/src/uv
    git -C /tmp/src/uv checkout 26a9dd4b2125bc271b47855e1fa0c49af3365db5
    python bench/suite/build_docsite.py /tmp/src/uv --docs docs --name uv --out /tmp/suite/uv

    git clone https://github.com/solana-foundation/solana-improvement-documents /tmp/src/simd
    git -C /tmp/src/simd checkout 6aa1a47131d2edc8dbf77d07cd20ef01f6c6438d
    python bench/suite/build_docsite.py /tmp/src/simd --docs proposals --name simd --out /tmp/suite/simd
    git clone https://github.com/argoproj/argo-cd /tmp/src/argocd
    git -C /tmp/src/argocd checkout 37ee0097cf851bc2dd7665fc081bbce61a7e836e
    python bench/suite/build_docsite.py /tmp/src/argocd --docs docs --exclude user-guide/commands --name argocd --out /tmp/suite/argocd

    git clone https://github.com/rust-lang/reference /tmp/src/rustref
    git -C /tmp/src/rustref checkout 3b38834b39f732c64686f7c64aa29dcf3cd83ba5
    python bench/suite/build_docsite.py /tmp/src/rustref --docs src --name rustref --out /tmp/suite/rustref

    git clone https://github.com/scala/docs.scala-lang /tmp/src/sips
    git -C /tmp/src/sips checkout 7689a46f38261d036ef5ee5b87d9ff366af396b9
    python bench/suite/build_docsite.py /tmp/src/sips/_sips --docs sips --name sips --out /tmp/suite/sips

    git clone https://github.com/helm/helm-www /tmp/src/helm
    git -C /tmp/src/helm checkout 227f41447a683545325e87aedf10c67096d11004
    python bench/suite/build_docsite.py /tmp/src/helm --docs docs --exclude helm --name helm --out /tmp/suite/helm

    git clone https://github.com/pallets/flask /tmp/src/flask
    git -C /tmp/src/flask checkout 2ac89889f4cc330eabd50f295dcef02828522c69
    python bench/suite/build_docsite.py /tmp/src/flask --docs docs --suffixes .rst,.md --name flask --out /tmp/suite/flask

    git clone https://github.com/squidfunk/mkdocs-material /tmp/src/mkmat
    git -C /tmp/src/mkmat checkout 5b36f2ac499a45905e246bc66bbee2858ef6556f
    python bench/suite/build_docsite.py /tmp/src/mkmat --docs docs --name mkmat --out /tmp/suite/mkmat

    git clone https://github.com/tektoncd/community /tmp/src/tekton
    git -C /tmp/src/tekton checkout 1f8ddde5add3a4db23d857282ff6b734a831b1c9
    python bench/suite/build_docsite.py /tmp/src/tekton --docs teps --exclude tools --name tekton --out /tmp/suite/tekton

    git clone https://github.com/jupyter-book/mystmd /tmp/src/myst
    git -C /tmp/src/myst checkout 1ad857c61d787bfcfa02da2af88cff7a93c214e6
    python bench/suite/build_docsite.py /tmp/src/myst --docs docs --name myst --out /tmp/suite/myst

    git clone https://github.com/openshift/runbooks /tmp/src/runbooks
    git -C /tmp/src/runbooks checkout 82bd2d9d3789e76f8a8202f8a9ee0f0639cc5b73
    python bench/suite/build_docsite.py /tmp/src/runbooks --docs alerts --name runbooks --out /tmp/suite/runbooks

    git clone https://github.com/tensorflow/community /tmp/src/tfrfcs
    git -C /tmp/src/tfrfcs checkout 185530183d8f3734795beb520d02b8265c230a12
    python bench/suite/build_docsite.py /tmp/src/tfrfcs --docs rfcs --name tfrfcs --out /tmp/suite/tfrfcs

    git clone https://github.com/kubernetes/website /tmp/src/k8sdocs
    git -C /tmp/src/k8sdocs checkout 5f35e270f9c25053f8f6e1e33cdaad836a7f4ceb
    python bench/suite/build_docsite.py /tmp/src/k8sdocs --docs content/en/docs --exclude contribute,doc-contributor-tools,home,images,reference,setup,tutorials,_index.md,test.md --name k8sdocs --out /tmp/suite/k8sdocs

    git clone https://github.com/basecamp/handbook /tmp/src/basecamp
    git -C /tmp/src/basecamp checkout c9536061f26d0b5bd9f2f900d63e27e9f4deb4ed
    python bench/suite/build_docsite.py /tmp/src/basecamp --docs . --name basecamp --out /tmp/suite/basecamp

    git clone https://github.com/wezterm/wezterm /tmp/src/wezterm
    git -C /tmp/src/wezterm checkout 4ff581a8aa3460d04f859fdadb50f29b3c507763
    python bench/suite/build_docsite.py /tmp/src/wezterm --docs docs --name wezterm --out /tmp/suite/wezterm

    git clone https://github.com/icco/postmortems /tmp/src/postmortems
    git -C /tmp/src/postmortems checkout f901e76eb5f41ccd62bbb0eb1bbad705acfa8f4c
    python bench/suite/build_docsite.py /tmp/src/postmortems --docs data --name postmortems --out /tmp/suite/postmortems

    git clone https://github.com/withastro/docs /tmp/src/astro
    git -C /tmp/src/astro checkout 741c1b89ba13cf9b4ac4087ef09dc269e113fa77
    python bench/suite/build_docsite.py /tmp/src/astro --docs src/content/docs/en --name astro --out /tmp/suite/astro

    git clone https://github.com/npm/rfcs /tmp/src/npmrfcs
    git -C /tmp/src/npmrfcs checkout 520fe7d8a0e9c4ccbaf20acbbc73d954dd6f19f3
    python bench/suite/build_docsite.py /tmp/src/npmrfcs --docs . --exclude .github,test,docs,CODE_OF_CONDUCT.md,SECURITY.md,CONTRIBUTING.md --name npmrfcs --out /tmp/suite/npmrfcs

    git clone https://github.com/matrix-org/matrix-spec-proposals /tmp/src/msc
    git -C /tmp/src/msc checkout 82e3177050e684fd4839edcc6a61583262f31c99
    python bench/suite/build_docsite.py /tmp/src/msc --docs proposals --name msc --out /tmp/suite/msc

    git clone https://github.com/opentofu/opentofu /tmp/src/tofu
    git -C /tmp/src/tofu checkout f831fa1aa4b90cdbdb1e0b5a8d5815f9e74646a5
    python bench/suite/build_docsite.py /tmp/src/tofu/website --docs docs --name tofu --out /tmp/suite2/tofu-docs
    python bench/suite/build_docsite.py /tmp/src/tofu --docs rfc --name tofu-rfc --out /tmp/suite2/tofu-rfc
    mkdir -p /tmp/suite/tofu/02_knowledge
    cp -r /tmp/suite2/tofu-docs/02_knowledge/tofu /tmp/suite2/tofu-rfc/02_knowledge/tofu-rfc /tmp/suite/tofu/02_knowledge/

    git clone https://github.com/kubernetes/community /tmp/src/k8scomm
    git -C /tmp/src/k8scomm checkout 24e7d8f5409c1a0121394a613746e524f781e044
    python bench/suite/build_docsite.py /tmp/src/k8scomm --docs . --exclude .github,hack,generator --name k8scomm --out /tmp/suite/k8scomm

    git clone https://github.com/stellar/stellar-protocol /tmp/src/stellar
    git -C /tmp/src/stellar checkout d186cf3187722ebcdbd647e782449e543f9d0ef3
    python bench/suite/build_docsite.py /tmp/src/stellar --docs . --exclude .github,.claude --name stellar --out /tmp/suite/stellar

    git clone https://github.com/mastodon/documentation /tmp/src/mastodon
    git -C /tmp/src/mastodon checkout 2903485da54a20f1da5e7dfb8b34712e6196e8f7
    python bench/suite/build_docsite.py /tmp/src/mastodon --docs content/en --name mastodon --out /tmp/suite/mastodon

    git clone https://github.com/nostr-protocol/nips /tmp/src/nips
    git -C /tmp/src/nips checkout db5fe3de8c5d1443b634c9bbf66ecb004f337057
    python bench/suite/build_docsite.py /tmp/src/nips --docs . --exclude .github --name nips --out /tmp/suite/nips

    git clone https://github.com/filecoin-project/FIPs /tmp/src/fips
    git -C /tmp/src/fips checkout dd5075fe097672b2af4e72d16507efdc7f03f1c7
    python bench/suite/build_docsite.py /tmp/src/fips --docs . --exclude .github --name fips --out /tmp/suite/fips

    git clone https://github.com/bazelbuild/proposals /tmp/src/bazelprop
    git -C /tmp/src/bazelprop checkout f6f439964ad9b5fa0f620b34a318dff184b11ea7
    python bench/suite/build_docsite.py /tmp/src/bazelprop --docs . --exclude .github --name bazelprop --out /tmp/suite/bazelprop

    git clone https://github.com/vuejs/rfcs /tmp/src/vuerfcs
    git -C /tmp/src/vuerfcs checkout 2c62d12d0b8dc53018ed6ab6fbc5aea336d8eea6
    python bench/suite/build_docsite.py /tmp/src/vuerfcs --docs . --exclude .github --name vuerfcs --out /tmp/suite/vuerfcs

    git clone https://github.com/aptos-foundation/AIPs /tmp/src/aips
    git -C /tmp/src/aips checkout d93009a559800bb45cbfed3afd8a058be917a8f6
    python bench/suite/build_docsite.py /tmp/src/aips --docs . --exclude .github --name aips --out /tmp/suite/aips

    git clone https://github.com/pnpm/pnpm.io /tmp/src/pnpm
    git -C /tmp/src/pnpm checkout 4096ad35b19c7d7e0c2c64c704c57daf5bb91668
    python bench/suite/build_docsite.py /tmp/src/pnpm --docs docs --name pnpmdocs --out /tmp/suite/pnpmdocs

    git clone https://github.com/eslint/eslint /tmp/src/eslint
    git -C /tmp/src/eslint checkout c27bc926e496985eb7911c09eb60914b2e4b5d0f
    python bench/suite/build_docsite.py /tmp/src/eslint --docs docs/src --name eslintdocs --out /tmp/suite/eslintdocs

    git clone https://github.com/jupyter/enhancement-proposals /tmp/src/jeps
    git -C /tmp/src/jeps checkout adc5b88d17f8b93740238e665865b632ab590934
    python bench/suite/build_docsite.py /tmp/src/jeps --docs . --name jeps --out /tmp/suite/jeps

    git clone https://github.com/NixOS/rfcs /tmp/src/nixrfcs
    git -C /tmp/src/nixrfcs checkout c655bdaab40f7a467f75dbb5af4325d991874e44
    python bench/suite/build_docsite.py /tmp/src/nixrfcs --docs . --name nixrfcs --out /tmp/suite/nixrfcs

    git clone https://github.com/conda/ceps /tmp/src/ceps
    git -C /tmp/src/ceps checkout c6ae4d9dc885da2043a5cd6c0b977663f4b64b8d
    python bench/suite/build_docsite.py /tmp/src/ceps --docs . --name ceps --out /tmp/suite/ceps

    git clone https://github.com/dapr/docs /tmp/src/daprdocs
    git -C /tmp/src/daprdocs checkout 0748da594aae03529034fd4aa1d10d96199df0c1
    git clone https://github.com/dapr/proposals /tmp/src/daprprop
    git -C /tmp/src/daprprop checkout 9ca89581009e7dc7827bd0c619c05b8264b95512
    python bench/suite/build_docsite.py /tmp/src/daprdocs --docs daprdocs/content/en --name dapr --out /tmp/suite2/dapr-docs
    python bench/suite/build_docsite.py /tmp/src/daprprop --docs . --name dapr-proposals --out /tmp/suite2/dapr-prop
    mkdir -p /tmp/suite/dapr/02_knowledge
    cp -r /tmp/suite2/dapr-docs/02_knowledge/dapr /tmp/suite2/dapr-prop/02_knowledge/dapr-proposals /tmp/suite/dapr/02_knowledge/

    git clone https://github.com/caddyserver/website /tmp/src/caddy
    git -C /tmp/src/caddy checkout 1a6bbd7d92ea03da4fc4864a096dbbb290ffc1fc
    python bench/suite/build_docsite.py /tmp/src/caddy --docs src/docs --name caddy --out /tmp/suite/caddy

    git clone https://github.com/kubernetes-sigs/gateway-api /tmp/src/gateway
    git -C /tmp/src/gateway checkout 4564255ac2c35d582249b3cdf261bdf51c8bca32
    python bench/suite/build_docsite.py /tmp/src/gateway --docs site/content/en --name gateway --out /tmp/suite2/gw-docs
    python bench/suite/build_docsite.py /tmp/src/gateway --docs geps --name geps --out /tmp/suite2/gw-geps
    mkdir -p /tmp/suite/gateway/02_knowledge
    cp -r /tmp/suite2/gw-docs/02_knowledge/gateway /tmp/suite2/gw-geps/02_knowledge/geps /tmp/suite/gateway/02_knowledge/

    git clone https://github.com/traefik/traefik /tmp/src/traefik
    git -C /tmp/src/traefik checkout fd5a576df2e8aeb0bfc8a96b6ef6e60a61f7ec0a
    python bench/suite/build_docsite.py /tmp/src/traefik --docs docs/content --name traefik --out /tmp/suite/traefik

    git clone https://github.com/withastro/roadmap /tmp/src/astroroadmap
    git -C /tmp/src/astroroadmap checkout 56a8461354f9aaa0cfc11b61702089bce0ddfb36
    python bench/suite/build_docsite.py /tmp/src/astroroadmap --docs . --exclude .github --name astroroadmap --out /tmp/suite/astroroadmap

    git clone https://github.com/argoproj/argo-workflows /tmp/src/argowf
    git -C /tmp/src/argowf checkout f016ad89eb269d282aec06dc491c29f396a38df4
    python bench/suite/build_docsite.py /tmp/src/argowf --docs docs --name argowf --out /tmp/suite/argowf

    git clone https://github.com/babel/website /tmp/src/babel
    git -C /tmp/src/babel checkout b4753209310b5b1a6c6a27014ff50a2283e09327
    python bench/suite/build_docsite.py /tmp/src/babel --docs docs --name babel --out /tmp/suite/babel

    git clone https://github.com/docker/cli /tmp/src/dockercli
    git -C /tmp/src/dockercli checkout 28f756087eea5fa301f3fbf12b01ae62f91521c2
    python bench/suite/build_docsite.py /tmp/src/dockercli --docs docs --name dockercli --out /tmp/suite/dockercli

    git clone https://github.com/crossplane/crossplane /tmp/src/crossplane
    git -C /tmp/src/crossplane checkout 2d040d2daf4e001799c4154a4a09b9e1f40d7fde
    python bench/suite/build_docsite.py /tmp/src/crossplane --docs design --name crossplane --out /tmp/suite/crossplane

    git clone https://github.com/open-telemetry/oteps /tmp/src/oteps
    git -C /tmp/src/oteps checkout 67dc8ec420cf85ca80d03e578ffe9fdf528f202c
    python bench/suite/build_docsite.py /tmp/src/oteps --docs text --name oteps --out /tmp/suite/oteps

    git clone https://github.com/denoland/docs /tmp/src/deno
    git -C /tmp/src/deno checkout eb8f78e90dbc72f3b3ab7dcd85609622379b5bca
    python bench/suite/build_docsite.py /tmp/src/deno --docs . --name deno --out /tmp/suite/deno

    git clone https://github.com/cilium/design-cfps /tmp/src/ciliumcfps
    git -C /tmp/src/ciliumcfps checkout 7975d7a5741c91e825f4089b9a1109724a0a8701
    python bench/suite/build_docsite.py /tmp/src/ciliumcfps --docs . --name ciliumcfps --out /tmp/suite/ciliumcfps

    git clone https://github.com/remix-run/react-router /tmp/src/reactrouter
    git -C /tmp/src/reactrouter checkout cab1a69054aa7dfba08a81b6e4b4d13957c82a38
    python bench/suite/build_docsite.py /tmp/src/reactrouter --docs docs --name react-router --out /tmp/suite2/rr-docs
    python bench/suite/build_docsite.py /tmp/src/reactrouter --docs decisions --name react-router-decisions --out /tmp/suite2/rr-dec
    mkdir -p /tmp/suite/reactrouter/02_knowledge
    cp -r /tmp/suite2/rr-docs/02_knowledge/react-router /tmp/suite2/rr-dec/02_knowledge/react-router-decisions /tmp/suite/reactrouter/02_knowledge/

    git clone https://github.com/erlang/eep /tmp/src/eeps
    git -C /tmp/src/eeps checkout a59b36bb42ae8d5f60a4b802384bf5efd8ea6d5a
    python bench/suite/build_docsite.py /tmp/src/eeps --docs eeps --name eeps --out /tmp/suite/eeps

    git clone https://github.com/ghc-proposals/ghc-proposals /tmp/src/ghcprop
    git -C /tmp/src/ghcprop checkout 667c883317a7df10cb6391ab36a38e8aaa31a7d0
    python bench/suite/build_docsite.py /tmp/src/ghcprop --docs proposals --suffixes .rst --name ghcprop --out /tmp/suite/ghcprop

    git clone https://github.com/dart-lang/language /tmp/src/dartlang
    git -C /tmp/src/dartlang checkout 635df9ba8b6a76d8212adfcf0b290a359b2dbabd
    python bench/suite/build_docsite.py /tmp/src/dartlang --docs . --exclude .github --name dartlang --out /tmp/suite/dartlang

    git clone https://github.com/sveltejs/kit /tmp/src/sveltekit
    git -C /tmp/src/sveltekit checkout aa810a04146b98b77592f7b384347140d29ff599
    python bench/suite/build_docsite.py /tmp/src/sveltekit --docs documentation/docs --name sveltekit --out /tmp/suite/sveltekit

    git clone https://github.com/kubernetes-sigs/cluster-api /tmp/src/capi
    git -C /tmp/src/capi checkout ae7ff047db499ac3858ade268ba38db8c9f128bb
    python bench/suite/build_docsite.py /tmp/src/capi --docs docs/book/src --name cluster-api-book --out /tmp/suite2/capi-book
    python bench/suite/build_docsite.py /tmp/src/capi --docs docs/proposals --name cluster-api-proposals --out /tmp/suite2/capi-prop
    mkdir -p /tmp/suite/capi/02_knowledge
    cp -r /tmp/suite2/capi-book/02_knowledge/cluster-api-book /tmp/suite2/capi-prop/02_knowledge/cluster-api-proposals /tmp/suite/capi/02_knowledge/

    git clone https://github.com/vitest-dev/vitest /tmp/src/vitest
    git -C /tmp/src/vitest checkout c3ba16b35847d27fb9f01f38cdcb047c77e121f8
    python bench/suite/build_docsite.py /tmp/src/vitest --docs docs --exclude blog --name vitest --out /tmp/suite/vitest

    git clone https://github.com/webpack/webpack.js.org /tmp/src/webpack
    git -C /tmp/src/webpack checkout 9c0ce6f5e982c2efd3e97360a107a6343cf2c77b
    python bench/suite/build_docsite.py /tmp/src/webpack --docs src/content --exclude blog --name webpack --out /tmp/suite/webpack

    git clone https://github.com/aws/aws-cdk-rfcs /tmp/src/cdkrfcs
    git -C /tmp/src/cdkrfcs checkout 71ef61ccec7c45de5ca2b238c8839595f01929ee
    python bench/suite/build_docsite.py /tmp/src/cdkrfcs --docs text --name cdkrfcs --out /tmp/suite/cdkrfcs

    git clone https://github.com/swiftlang/swift-book /tmp/src/swiftbook
    git -C /tmp/src/swiftbook checkout 29329996c4ec537de0b16e70609e2a6c4ecc2af7
    python bench/suite/build_docsite.py /tmp/src/swiftbook --docs TSPL.docc --name swiftbook --out /tmp/suite/swiftbook

    git clone https://github.com/nuxt/nuxt /tmp/src/nuxt
    git -C /tmp/src/nuxt checkout 4e0099839c3ea0483e6dc639e4be6d9bdffc3e56
    python bench/suite/build_docsite.py /tmp/src/nuxt --docs docs --name nuxt --out /tmp/suite/nuxt

    git clone https://github.com/honojs/website /tmp/src/hono
    git -C /tmp/src/hono checkout 3048a3680d48fbc7dfd7cd1dd312f409036d4518
    python bench/suite/build_docsite.py /tmp/src/hono --docs docs --name hono --out /tmp/suite2/hono-docs
    python bench/suite/build_docsite.py /tmp/src/hono --docs examples --name hono-examples --out /tmp/suite2/hono-ex
    mkdir -p /tmp/suite/hono/02_knowledge
    cp -r /tmp/suite2/hono-docs/02_knowledge/hono /tmp/suite2/hono-ex/02_knowledge/hono-examples /tmp/suite/hono/02_knowledge/

    git clone https://github.com/withastro/starlight /tmp/src/starlight
    git -C /tmp/src/starlight checkout 3999be7cc18b41095d61e3b63d68ff3e6c6c050b
    python bench/suite/build_docsite.py /tmp/src/starlight --docs docs/src/content/docs --name starlight --out /tmp/suite/starlight

    git clone https://github.com/rust-lang/rustup /tmp/src/rustup
    git -C /tmp/src/rustup checkout 0878429a3d0868928cb57085332854e183f9fcfe
    python bench/suite/build_docsite.py /tmp/src/rustup --docs doc --name rustup --out /tmp/suite/rustup

    git clone https://github.com/near/NEPs /tmp/src/nearneps
    git -C /tmp/src/nearneps checkout dcc0bcbd452f68c936696e5f9552e567c3b162e0
    python bench/suite/build_docsite.py /tmp/src/nearneps --docs neps --name nearneps --out /tmp/suite/nearneps

    git clone https://github.com/polkadot-fellows/RFCs /tmp/src/polkadot
    git -C /tmp/src/polkadot checkout 6e227ae44e82c1b9a66fff2b02d5e5687f9f9e05
    python bench/suite/build_docsite.py /tmp/src/polkadot --docs text --name polkadot --out /tmp/suite/polkadot

    git clone https://github.com/cometbft/cometbft /tmp/src/cometbft
    git -C /tmp/src/cometbft checkout 5bba72c14f2be2b06ac4d89dbdf6712e2e5e095c
    python bench/suite/build_docsite.py /tmp/src/cometbft --docs docs --name cometbft-docs --out /tmp/suite2/cbd
    python bench/suite/build_docsite.py /tmp/src/cometbft --docs spec --name cometbft-spec --out /tmp/suite2/cbs
    mkdir -p /tmp/suite/cometbft/02_knowledge
    cp -r /tmp/suite2/cbd/02_knowledge/cometbft-docs /tmp/suite2/cbs/02_knowledge/cometbft-spec /tmp/suite/cometbft/02_knowledge/

    git clone https://github.com/microsoft/TypeScript-Website /tmp/src/typescript
    git -C /tmp/src/typescript checkout 1f8e642574ce992bfd573a96b5e3de43d8ac044a
    python bench/suite/build_docsite.py /tmp/src/typescript/packages/documentation --docs copy/en --name typescript-docs --out /tmp/suite2/tsd
    python bench/suite/build_docsite.py /tmp/src/typescript/packages/tsconfig-reference --docs copy/en --name tsconfig-reference --out /tmp/suite2/tsc
    mkdir -p /tmp/suite/typescript/02_knowledge
    cp -r /tmp/suite2/tsd/02_knowledge/typescript-docs /tmp/suite2/tsc/02_knowledge/tsconfig-reference /tmp/suite/typescript/02_knowledge/

    git clone https://github.com/solidjs/solid-docs /tmp/src/solid
    git -C /tmp/src/solid checkout 12dcb647014bd99a88f19d1bd70a7cc4450f3272
    python bench/suite/build_docsite.py /tmp/src/solid --docs src/routes --name solid --out /tmp/suite/solid

    git clone https://github.com/biomejs/website /tmp/src/biome
    git -C /tmp/src/biome checkout 830c2a8d641c6c34ca551ff703dab758694c75e1
    python bench/suite/build_docsite.py /tmp/src/biome --docs src/content/docs --name biome --exclude es,fr,ja,pl,pt-BR,ru,uk,zh-CN --out /tmp/suite/biome

    git clone https://github.com/jekyll/jekyll /tmp/src/jekyll
    git -C /tmp/src/jekyll checkout 202df571314ba1d18e9fccd81d12aaad4a703c38
    python bench/suite/build_docsite.py /tmp/src/jekyll --docs docs --name jekyll --out /tmp/suite/jekyll

    git clone https://github.com/Homebrew/brew /tmp/src/homebrew
    git -C /tmp/src/homebrew checkout aad366ffaf6a8c94c66d35e4b990d42ac4195305
    python bench/suite/build_docsite.py /tmp/src/homebrew --docs docs --name homebrew --out /tmp/suite/homebrew

    git clone https://github.com/rust-lang/rust-by-example /tmp/src/rbe
    git -C /tmp/src/rbe checkout 898f0ac1479223d332309e0fce88d44b39927d28
    python bench/suite/build_docsite.py /tmp/src/rbe --docs src --name rust-by-example --out /tmp/suite/rbe

    git clone https://github.com/elixir-lang/elixir /tmp/src/elixir
    git -C /tmp/src/elixir checkout 63a7a054ceb2383d795731db8e6ea28aa30e4a03
    python bench/suite/build_docsite.py /tmp/src/elixir --docs lib/elixir/pages --name elixir --out /tmp/suite/elixir

    git clone https://github.com/expressjs/expressjs.com /tmp/src/express
    git -C /tmp/src/express checkout b9d510698d15f3fd21f4a13fc97fe9f292f9b105
    python bench/suite/build_docsite.py /tmp/src/express --docs src/content --name express --out /tmp/suite/express \
        --exclude docs/de,pages/de,docs/es,pages/es,docs/fr,pages/fr,docs/it,pages/it,docs/ja,pages/ja,docs/ko,pages/ko,docs/pt-br,pages/pt-br,docs/zh-cn,pages/zh-cn,docs/zh-tw,pages/zh-tw

    git clone https://github.com/tokio-rs/website /tmp/src/tokio
    git -C /tmp/src/tokio checkout 0b994549a4cafaea09c62d897da421d1f7dff973
    python bench/suite/build_docsite.py /tmp/src/tokio --docs content --name tokio --out /tmp/suite/tokio

    git clone https://github.com/rust-lang/nomicon /tmp/src/nomicon
    git -C /tmp/src/nomicon checkout cc6a6bae8c3bfa389974e533c54694662c1a9de6
    python bench/suite/build_docsite.py /tmp/src/nomicon --docs src --name nomicon --out /tmp/suite/nomicon

    git clone https://github.com/trpc/trpc /tmp/src/trpc
    git -C /tmp/src/trpc checkout 340811ba5320637fbaf48fccf3dbfdd258bd34db
    python bench/suite/build_docsite.py /tmp/src/trpc --docs www --name trpc --exclude node_modules,src --out /tmp/suite/trpc

    git clone https://github.com/fluent/fluentd-docs-gitbook /tmp/src/fluentd
    git -C /tmp/src/fluentd checkout a7a42eb19ad2006d0279cc5cf4bfa510f74743f2
    python bench/suite/build_docsite.py /tmp/src/fluentd --docs . --name fluentd --exclude .github,.gitbook --out /tmp/suite/fluentd

    git clone https://github.com/jestjs/jest /tmp/src/jest
    git -C /tmp/src/jest checkout 52db46e50404c993d3f10dd1481e861cc04ae22e
    python bench/suite/build_docsite.py /tmp/src/jest --docs docs --name jest-docs --out /tmp/suite2/jd
    python bench/suite/build_docsite.py /tmp/src/jest --docs website/versioned_docs --name jest-versioned-docs --out /tmp/suite2/jv
    python bench/suite/build_docsite.py /tmp/src/jest --docs website/blog --name jest-blog --out /tmp/suite2/jb
    mkdir -p /tmp/suite/jest/02_knowledge
    cp -r /tmp/suite2/jd/02_knowledge/* /tmp/suite2/jv/02_knowledge/* /tmp/suite2/jb/02_knowledge/* /tmp/suite/jest/02_knowledge/

    git clone https://github.com/prettier/prettier /tmp/src/prettier
    git -C /tmp/src/prettier checkout 4f84a934201322ca87750e2b9b25baf296da6560
    python bench/suite/build_docsite.py /tmp/src/prettier --docs docs --name prettier-docs --out /tmp/suite2/pd
    python bench/suite/build_docsite.py /tmp/src/prettier --docs website/versioned_docs --name prettier-versioned-docs --out /tmp/suite2/pv
    python bench/suite/build_docsite.py /tmp/src/prettier --docs website/blog --name prettier-blog --out /tmp/suite2/pb
    mkdir -p /tmp/suite/prettier/02_knowledge
    cp -r /tmp/suite2/pd/02_knowledge/* /tmp/suite2/pv/02_knowledge/* /tmp/suite2/pb/02_knowledge/* /tmp/suite/prettier/02_knowledge/

    git clone https://github.com/reduxjs/redux-toolkit /tmp/src/rtk
    git -C /tmp/src/rtk checkout 74200d87c27ca2b1c0915b2fbb4c44dd7494c2aa
    python bench/suite/build_docsite.py /tmp/src/rtk --docs docs --name redux-toolkit --out /tmp/suite/rtk

    git clone https://github.com/pnpm/pnpm.io /tmp/src/pnpm
    git -C /tmp/src/pnpm checkout 4096ad35b19c7d7e0c2c64c704c57daf5bb91668
    python bench/suite/build_docsite.py /tmp/src/pnpm --docs docs --name pnpm-docs --out /tmp/suite3/pd
    python bench/suite/build_docsite.py /tmp/src/pnpm --docs versioned_docs --name pnpm-versioned-docs --out /tmp/suite3/pv
    python bench/suite/build_docsite.py /tmp/src/pnpm --docs versioned_docs_archived --name pnpm-versioned-docs-archived --out /tmp/suite3/pa --exclude version-2.x,version-3.x,version-4.x,version-5.x,version-6.x,version-7.x
    python bench/suite/build_docsite.py /tmp/src/pnpm --docs blog --name pnpm-blog --out /tmp/suite3/pb
    mkdir -p /tmp/suite/pnpm/02_knowledge
    cp -r /tmp/suite3/pd/02_knowledge/* /tmp/suite3/pv/02_knowledge/* /tmp/suite3/pa/02_knowledge/* /tmp/suite3/pb/02_knowledge/* /tmp/suite/pnpm/02_knowledge/

    git clone https://github.com/sequelize/website /tmp/src/sequelize
    git -C /tmp/src/sequelize checkout 678e2ada0f480fe4736c450a0498f08a82a7fa96
    python bench/suite/build_docsite.py /tmp/src/sequelize --docs docs --name sequelize-docs --out /tmp/suite3/sd
    python bench/suite/build_docsite.py /tmp/src/sequelize --docs versioned_docs --name sequelize-versioned-docs --out /tmp/suite3/sv
    mkdir -p /tmp/suite/sequelize/02_knowledge
    cp -r /tmp/suite3/sd/02_knowledge/* /tmp/suite3/sv/02_knowledge/* /tmp/suite/sequelize/02_knowledge/

    git clone https://github.com/mikro-orm/mikro-orm /tmp/src/mikroorm
    git -C /tmp/src/mikroorm checkout a6b9730585e467720b90390a1de706e0f4b8726c
    python bench/suite/build_docsite.py /tmp/src/mikroorm/docs --docs docs --name mikroorm-docs --out /tmp/suite3/md
    python bench/suite/build_docsite.py /tmp/src/mikroorm/docs --docs versioned_docs --name mikroorm-versioned-docs --out /tmp/suite3/mv --exclude version-5.9
    python bench/suite/build_docsite.py /tmp/src/mikroorm/docs --docs blog --name mikroorm-blog --out /tmp/suite3/mb
    mkdir -p /tmp/suite/mikroorm/02_knowledge
    cp -r /tmp/suite3/md/02_knowledge/* /tmp/suite3/mv/02_knowledge/* /tmp/suite3/mb/02_knowledge/* /tmp/suite/mikroorm/02_knowledge/

Sources (only the Markdown is read):
- ``redux``: every ``docs/**/*.md`` and ``*.mdx`` of reduxjs/redux at 3084fc3 — a Docusaurus
  site (tutorials, usage guides, FAQ, API reference, style guide; front matter ``id``,
  ``title``, ``sidebar_label``, ``description``; MDX imports and components).
- ``fastify``: every ``docs/**/*.md`` of fastify/fastify at 83e6976 — a web framework's
  reference and guides (no front matter; anchors set in HTML, ``<a id="…"></a>``).
- ``hugo``: every ``content/en/**/*.md`` of gohugoio/hugoDocs at 1c613349f — a static site
  generator's manual built with itself: guides, ~600 near-alike reference pages (one per
  template function and method), shortcodes in the text (``{{% glossary-term x %}}``,
  ``{{< code-toggle >}}``), glossary links written ``[term](g)``, ``aliases`` in front matter.
- ``rustbook``: every ``src/**/*.md`` of rust-lang/book at 9175448 — *The Rust Programming
  Language* as mdBook keeps it: chapters read in order, listings as ``{{#rustdoc_include …}}``
  lines in fences, ``<Listing>`` captions, HTML comments after links and above kept anchors,
  no front matter.
- ``obsidian``: every ``en/**/*.md`` of obsidianmd/obsidian-help at fa179e9 — Obsidian's own
  help vault: notes named with spaces in folders, linked by ``[[wiki links]]`` (headings,
  heading chains ``[[Note#A#B]]``, block ids ``#^id``, ``[[Note\\|shown]]`` in tables),
  callouts (``> [!note]``), embeds (``![[file.png]]``), front matter ``aliases``,
  ``description``, ``permalink``.
- ``handbook``: every ``pages/**/*.md`` of 18F/handbook at 1e49556 — a government digital
  agency's staff handbook as its Eleventy site keeps it: policies, travel and leave, tools,
  hiring, supervising; front matter ``title`` and ``redirect_from``, HTML tables, Liquid
  shortcodes (``{% slack_channel "sf" %}``, ``{% page "/x/" %}``), heading ids ``{#id}``.
- ``vite``: every ``docs/**/*.md`` of vitejs/vite at a98c8d9 — a build tool's VitePress
  site: guides, long configuration reference pages (one heading per option, many alike:
  ``server.*``, ``preview.*``, ``build.*``), the environment API, release blog posts and
  breaking-change notes; ``::: tip`` containers, code groups, root-absolute links
  (``/config/server-options#server-proxy``).
- ``wikibase``: every ``docs/**/*.md`` of wikimedia/mediawiki-extensions-Wikibase at 3ffc692 —
  an extension's developer documentation kept with its code (Doxygen pages): 35 decision
  records (one rejected, later ones building on earlier ones without marks), component
  stubs, one page per SQL table, storage and topic pages, and one long page of every
  setting; ``{#anchor}`` ids on headings, ``@ref``/``@subpage`` lines.
- ``packaging``: every ``source/**/*.rst`` of pypa/packaging.python.org at ab49948 — the Python
  Packaging User Guide as Sphinx builds it, in reStructuredText: tutorials, how-to guides,
  discussions and the normative specifications with their history sections; ``:ref:``,
  ``:doc:`` and ``:pep:`` roles, ``.. _label:`` lines, intersphinx targets.
- ``odh``: every ``architecture-decision-records/**/*.md`` of opendatahub-io/architecture-decision-records
  at 6325c10 — a product's decision log (the operator, model serving, pipelines, evaluation,
  registries): 44 long records with a status table (Status, Authors, Supersedes) in the body,
  sign-off tables, the template and README; replacements stated in the text, not marked.
- ``prometheus``: every ``docs/**/*.md`` of prometheus/docs at c105550 — a monitoring system's
  documentation site: concepts, best practices, instrumenting, guides, tutorials and three long
  specifications (OpenMetrics 1 and 2, remote write 2, native histograms, 60–150 KB each);
  front matter ``title`` and ``sort_rank``, thirteen folder ``index.md`` pages of front matter
  alone, links written as the site's URLs (``/docs/concepts/data_model/``), many into the
  server's own docs, which live elsewhere.
- ``devguide``: every ``**/*.rst`` of python/devguide at 0d5fbc0 (its pages sit at the
  repository's root) — CPython's developer guide in reStructuredText: setting up and building,
  the pull request lifecycle, testing, documentation, triage, the core team's process; code
  directives indented three spaces, ``:ref:`` labels and custom roles (``:cpy-file:``,
  ``:gh-label:``), include fragments, tables kept in CSV files the tree lacks.
- ``grpc``: every ``*.md`` of grpc/proposal at 1fd061a (the proposals sit at the repository's
  root) — gRPC's design proposals: 199 gRFCs for all languages (A), one language (L), the
  wire protocol (G) and the process (P), 1–140 KB each. No front matter: each opens with a
  title underlined ``----``, then ``* Author(s):``, ``* Status:`` (17 left as the template's
  ``{Draft, In Review, Ready for Implementation, Implemented}``), ``* Last updated:``; later
  proposals name the ones they update in the text; diagrams in folders the tree lacks.
- ``nodebp``: every ``sections/**/*.md`` of goldbergyoni/nodebestpractices at dc3d60c — a
  Node.js best-practices guide: 94 short English pages (error handling, security, production,
  Docker, testing, project structure) and, beside each, its translations as the repository
  keeps them (``x.french.md``, ``x.chinese.md``, ``x.japanese.md``…: 536 of the 630 pages,
  their code blocks the English page's). The intents are English and judge the English
  pages only: a translation is never relevant.
- ``hass``: every ``adr/*.md`` of home-assistant/architecture at be28892 — Home Assistant's
  22 architecture decision records (Nygard's form, a "Status" section: one "Superseded by
  [ADR-0020](…)", two "Reverted by [discussion #…](…)", the rest accepted), 14k tokens in all.
- ``goproposal``: every ``design/**/*.md`` of golang/proposal at f6e2e6b — 125 Go design
  documents (runtime, compiler, modules, generics, language changes), long, no front matter,
  almost no status lines; two kept twice (the text and its ``.src.md`` source in a folder);
  diagrams in folders the tree lacks.
- ``tldr``: every ``pages/**/*.md`` of tldr-pages/tldr at 08e345f — 7,425 English command
  cheat sheets in folders by platform (a title, a one-line description, examples of a
  bullet and a command line each; letters marked in words, "[c]reate", and placeholders,
  ``{{path/to/file}}``); the other languages' ``pages.xx/`` folders are left out.
- ``otel``: every ``**/*.md`` of open-telemetry/opentelemetry-specification at 1377f53 — the
  OpenTelemetry specification (91 pages) beside the 81 enhancement proposals that led to it,
  its changelog, compliance matrix and contributor pages (``.github/`` is hidden: not indexed).
- ``vue``: every ``src/**/*.md`` of vuejs/docs at 01e098a — Vue's documentation, 119 pages
  (the guide, the API reference with ``{#id}`` heading anchors, many headings inside list
  items, the style guide, the tutorial); nine pages are only a site component tag, and the
  site's ``.vue``/``.ts`` data files are left out.
- ``cargo``: every ``doc/book/src/**/*.md`` of rust-lang/cargo at af373f7 — the Cargo book,
  99 pages (guide, reference, 43 command pages generated from man pages, their options in
  HTML ``<dl>`` lists and common blocks repeated word for word, a 449 KB changelog).
- ``eips``: every ``EIPS/*.md`` of ethereum/EIPs at f767a1e — 949 Ethereum Improvement
  Proposals with YAML front matter (``status``: Final, Stagnant, Draft, Review, Last Call,
  Living, Withdrawn; ``requires``; ``withdrawal-reason`` naming a successor on 18), 365 of
  them ``status: Moved`` stubs of one line pointing to another repository; 18 current-vs-replaced
  pairs (``eips.pairs.jsonl``), none marked in ``supersedes``/``superseded-by`` fields.
- ``fastapi``: every ``docs/en/docs/**/*.md`` of fastapi/fastapi at c3f316b — FastAPI's English
  documentation, 155 pages (tutorial, advanced guide, deployment, how-to, reference pages of
  mkdocstrings directives); headings with ``{ #id }``, code examples as include directives
  (``{* ../../docs_src/body/tutorial001_py310.py hl[2] *}``: the code is not in the page),
  admonitions as ``/// note`` blocks, a 703 KB release notes page.
- ``cosmos``: every ``docs/build/architecture/**/*.md`` of cosmos/cosmos-sdk-docs at 4845163 —
  the Cosmos SDK's 62 architecture decision records as that repository keeps them in sync with
  cosmos/cosmos-sdk's ``docs/architecture`` (whose snapshot was too large to fetch here): no
  front matter, a "## Status" section on each (Accepted, Proposed, Draft, Rejected, Abandoned,
  Implemented, two "SUPERSEDED by ADR-045"), a changelog of dated lines, 2–37 KB, Go and
  protobuf code; 6 current-vs-replaced pairs (``cosmos.pairs.jsonl``), 3 marked.
- ``reactdev``: every ``src/content/**/*.md`` of reactjs/react.dev at 12d692d — React's
  documentation, 223 pages (learn, the API reference, 23 blog posts, community, warnings and
  errors): MDX components (``<Sandpack>``, ``<Pitfall>``, ``<DeepDive>``), heading ids as MDX
  comments (``{/*adding-event-handlers*/}``), front matter dates written ``2024/12/05``, pages
  of 50–90 KB and one of 337 KB.
- ``keep``: every ``proposals/**/*.md`` of Kotlin/KEEP at 974e3d2 — Kotlin's language and
  standard library design proposals (117 files, 1–97 KB), no front matter: a bullet header of
  Type, Authors, Status ("Stable in 1.1", "Declined", "Superseded by KEEP-0367"), Prototype,
  Discussion; older files renamed with their number, so links to the old names dangle; 6
  current-vs-replaced pairs (``keep.pairs.jsonl``).
- ``svelte``: every ``documentation/docs/**/*.md`` of sveltejs/svelte at 15720b1 — Svelte's
  documentation (106 files; the ten in ``.generated/`` folders are hidden, so not indexed):
  runes, template syntax, the v5 migration guide, legacy pages, module reference stubs;
  front matter titles YAML rejects (``title: {#if ...}``, ``title: bind:``).
- ``dotnetdesigns``: every ``**/*.md`` of dotnet/designs at 3cca817 — .NET's design documents
  (113 files) under ``accepted/<year>/`` and ``proposed/``, one template (Owner, Scenarios,
  Goals, Design, Q&A), almost no status lines; 7 current-vs-replaced pairs
  (``dotnetdesigns.pairs.jsonl``), 2 marked.
- ``pydantic``: every ``docs/**/*.md`` of pydantic/pydantic at 2151025 — Pydantic's
  documentation (89 pages: concepts, the migration guide, error references, 41 mkdocstrings
  stubs); attr_list ids on lines of their own (``{#field-after-validator}``), mkdocs-autorefs
  anchors (``[](){#x}``), admonitions and tabs.
- ``neps``: every ``doc/neps/**/*.rst`` of numpy/numpy at 1f90bbb — NumPy's enhancement
  proposals (61 files): the state in reStructuredText field lists (``:Status: Superseded``,
  ``:Replaced-By: :ref:`NEP56```), notes in directives indented four spaces; 6
  current-vs-replaced pairs (``neps.pairs.jsonl``), 5 marked.
- ``ember``: every ``text/*.md`` of emberjs/rfcs at 5208fbf — Ember's RFCs (262 files), the
  state in front matter ``stage:`` (accepted, released, recommended, discontinued), template
  directions in HTML comments, GitHub alerts; 9 current-vs-replaced pairs
  (``ember.pairs.jsonl``), 4 marked.
- ``csharplang``: every ``**/*.md`` of dotnet/csharplang at f445f64 — C#'s language design:
  662 Language Design Meeting notes (2013–2026), the feature proposals by version with
  ``proposals/rejected/`` and ``proposals/inactive/``, the spec's link pages; no front matter;
  10 current-vs-replaced pairs (``csharplang.pairs.jsonl``), 7 marked.
- ``rustcdev``: every ``src/**/*.md`` of rust-lang/rustc-dev-guide at 2cbf043 — the Rust
  compiler development guide (242 mdBook pages, no front matter, relative ``.md`` links).
- ``laravel``: every ``*.md`` of laravel/docs (branch 13.x) at 8607753 — Laravel's
  documentation (103 pages): ``<a name>`` anchors before headings, ``{.collection-method}``
  headings, code tabs, links written ``/docs/{{version}}/page#anchor``.
- ``nushell``: every ``**/*.md`` of nushell/nushell.github.io at 72e298f — the Nushell
  website (1,659 pages): the book with its translations in nine languages beside it, the
  cookbook, the language guide, 715 generated command pages, 493 blog posts.
- ``libp2p``: every ``**/*.md`` of libp2p/specs at 7740c07 — the libp2p specifications (67
  files), each opening with a lifecycle table whose ``Status`` is a column; ``_archive/``;
  8 current-vs-replaced pairs (``libp2p.pairs.jsonl``), 4 marked.
- ``cspecs``: every ``specs/**/*.md`` of ethereum/consensus-specs at a08d8a6 — the proof of
  stake consensus specifications (87 files, one folder per fork), executable Python in the text.
- ``cips``: every ``**/*.md`` of cardano-foundation/CIPs at eb45103 — Cardano's improvement
  proposals and problem statements (304 files): 146 CIP and 24 CPS folders, each a ``README.md``
  with YAML front matter (``Status``: 81 Proposed, 62 Active, 23 Open, 4 ``Inactive (…)`` with
  the reason in parentheses, two naming a successor: "superseded by CIP-0121 and CIP-0122",
  "superseded by CPS-0032"), beside it test vectors and annexes (16 more ``README.md`` files in
  sub-folders: CIP-0088's per-CIP registrations, CPS-0021's problem definition); 31 one-line
  stubs "Moved to [CIP-0001/README.md](./README.md)" kept from the old layout, 51 biweekly
  meeting notes (2020–2022) and their README, a French translation of CIP-1694 (the four
  ``.github/`` templates are hidden, so not indexed: 300 indexed); front matter keys written
  capitalised (``Title:``, ``Status:``, ``Created:``); 9 current-vs-replaced pairs
  (``cips.pairs.jsonl``), 6 marked.
- ``uv``: every ``docs/**/*.md`` of astral-sh/uv at 26a9dd4 — uv's MkDocs manual (81 pages,
  540 KB: getting started, guides with 16 integration guides, concepts, the pip interface,
  reference and policies): ``!!! note`` admonitions (191), content tabs ``=== "macOS and Linux"``
  (55 in 8 pages), ``title=`` on code fences, front matter ``title``/``description`` on 23 pages,
  two ``--8<--`` snippet lines (one page is only ``--8<-- "CONTRIBUTING.md"``); the CLI, settings
  and environment-variable references are generated at build time, so 63 links (in 25 pages)
  point to pages the tree lacks.
- ``drizzle``: every ``src/content/docs/**/*.mdx`` of drizzle-team/drizzle-orm-docs at f0262250dd0c —
  Drizzle ORM's Astro documentation (522 pages, 3.7 MB): one folder per database (``pg``,
  ``mysql``, ``sqlite``, ``mssql``, ``cockroach``, ``singlestore``) holding near-alike copies of
  the same pages (queries, column types, Drizzle Kit commands, relations, validators), older
  dialect-neutral copies of some at the top, ``get-started/`` pairs (``x-new``/``x-existing``)
  per driver, guides, tutorials and release notes; MDX ``import`` lines of site components
  (``<Callout>``, ``<CodeTabs>``, ``<IsSupportedChipGroup>``) on 484 pages, and 110 pages that pull
  shared text in from ``src/mdx/*.mdx`` fragments the tree lacks (``<$count/>``), front matter
  ``title`` on 93, links written as the site's URLs (``/docs/get-started/expo-new``).
- ``simd``: every ``proposals/*.md`` of solana-foundation/solana-improvement-documents at 6aa1a47 —
  Solana's improvement documents (118 proposals, 1–21 KB: runtime, SVM and sBPF, syscalls, vote and
  stake programs, fees and rent, block limits, shreds, Alpenglow consensus) with YAML front matter
  (``simd``, ``title``, ``authors`` — a single string on 12 —, ``category``, ``type``, ``status``: 50
  Review, 25 Activated, 14 Implemented, 12 Idea, 9 Accepted, 4 Withdrawn, 2 Living, 1 Stagnant, 1
  Draft; ``feature``, ``development``); ``supersedes``/``superseded-by``/``extends`` filled on 17
  (written ``'0118'``, ``0219``, ``SIMD-0387``; ``supersedes: 0161`` reads as the octal integer 113,
  three name proposals the folder lacks) and left empty or ``null`` on 9; two withdrawn predecessors
  nearly word for word their successors (0015/0118 share a title, 0048/0075); one file whose ``simd``
  field disagrees with its name (0505 says ``"0506"``); 10 current-vs-replaced pairs
  (``simd.pairs.jsonl``), 6 marked.
- ``argocd``: every ``docs/**/*.md`` of argoproj/argo-cd at 37ee0097cf85 but the 170 CLI command
  pages of ``docs/user-guide/commands/`` (1.4 MB generated from the ``argocd`` command's help:
  ``--exclude user-guide/commands``) — Argo CD's MkDocs manual, 285 pages, 2.1 MB: the operator
  manual (installation, declarative setup, RBAC, SSO and CI tokens with eleven providers, HA,
  TLS, ingress, the ApplicationSet controller's 25 pages, notifications with 22 service pages, 30
  upgrade-note pages from v1.0 to v3.6, eight generated server-flag references kept in
  ``operator-manual/server-commands/``), the user guide, the developer guide and 35 design
  proposals (32 with YAML front matter, the only pages that have any). GitHub alerts
  (``> [!NOTE]``, 324 in 103 pages) beside eleven ``!!!`` admonitions; 17 ``{!…!}``
  markdown-include lines in 16 pages, eleven of them pages that are only a heading and the
  include of a YAML example the tree lacks (``argocd-cm-yaml.md``, ``project-specification.md``,
  ``application-specification.md``), the included Markdown fragments kept as pages of their own
  (``notifications/functions.md``, ``resource_actions_builtin.md``); stubs left where pages moved
  (``user-guide/resource_hooks.md``, ``user-guide/gpg-verification.md``), two near-copies of the
  notification subscriptions page (``operator-manual/notifications/`` and ``user-guide/``); 14
  links (in 8 pages) into the command pages the tree lacks.
- ``rustref``: every ``src/**/*.md`` of rust-lang/reference at 3b38834b39f7 — *The Rust Reference*
  as mdBook keeps it, 122 pages, 1.1 MB (the language's lexical structure, macros, items,
  attributes, expressions, patterns, the type system, names, the memory model, linkage, inline
  assembly, unsafety, constant evaluation, the ABI): dense normative text, 2,996 rule identifier
  lines (``r[items.fn.generics]``) on their own line before each paragraph and heading in 113 pages,
  134 grammar blocks (`` ```grammar,expressions ``) in 67 pages, 550 link definitions that name a rule
  instead of a file (``[dereference expression]: expr.deref``), GitHub-style alerts (249
  ``> [!NOTE]``, 82 ``> [!EXAMPLE]``, 14 ``> [!WARNING]``) and edition blocks (``> [!EDITION-2024]``),
  28 ``<!-- template:attributes -->`` comments, about 900 rustdoc hidden lines (``# use ...;``) in
  Rust code blocks that read like headings outside a fence-aware parser; pages of 0.5–75 KB
  (``inline-assembly.md`` 75 KB), five stubs (``appendices.md``, ``type-system.md`` and
  ``lexical-structure.md`` are a heading alone, ``grammar.md`` and ``test-summary.md`` a heading and
  a preprocessor placeholder, ``{{ grammar-summary }}``, ``{{summary-table}}``), ``SUMMARY.md`` kept;
  no front matter and no ``{{#include}}``.
- ``sips``: every ``_sips/sips/*.md`` of scala/docs.scala-lang at 7689a46f3826 — the Scala Improvement
  Proposals as the documentation site keeps them (47 files, 708 KB, 0.3–44 KB: named and default
  arguments, 2.8 arrays, futures and promises, value classes, literal and opaque types, byname implicits,
  fewer braces, Scala CLI as the ``scala`` command with its runner specification, clause interleaving,
  match types, named tuples, ``@unroll``, ``into``, context bound and given syntax) with YAML front matter
  (``layout``, ``number``, ``permalink``, ``redirect_from``, ``title``, ``stage``: 44 completed, 3
  implementation; ``status``: 44 shipped, 2 waiting-for-implementation, 1 under-review; ``shipped`` on 6,
  ``presip-thread`` on 7, ``kind: SID`` on 9); seven pages of one line pointing to an old SID on
  scala-lang.org and three that are only an embedded Google document (``<iframe>``), Jekyll/Liquid in the
  text (20 ``{% highlight scala %}`` blocks in 4 pages, ``{{ site.scala3ref }}`` in a link), most
  proposals opening with a History table; the rejected and withdrawn proposals are not in this folder,
  and no front matter names a replacement: one proposal says in its text that it replaces another's
  feature (trait parameters replace early definitions), one revisits a rule of another (single-line
  lambdas after SIP-44's colon); 2 current-vs-replaced pairs (``sips.pairs.jsonl``), 1 stated.
- ``helm``: every ``docs/**/*.md`` and ``*.mdx`` of helm/helm-www at 227f41447a68 but the 60 pages of
  ``docs/helm/`` (``helm.md`` and 58 ``helm_*.md`` pages generated from the ``helm`` command's help, and
  their ``index.mdx`` card list: ``--exclude helm``) — Helm 4's user documentation as its Docusaurus site
  keeps it, 67 pages, 493 KB (29 ``.mdx``): the introduction, quickstart and installation, the Helm 4
  overview and a 41 KB changelog of 449 pull-request rows, the topic guides (charts, hooks, tests,
  library charts, repositories, OCI registries, provenance, RBAC, deprecated Kubernetes APIs, advanced
  techniques), the chart template guide with a 57 KB template function list, the chart best practices,
  three how-tos, the plugin guides (overview, user, Helm 3 migration, three tutorials), the Go SDK and
  the glossary; the translations (``i18n/``) and the Helm 3 and Helm 2 copies (``versioned_docs/``) sit
  outside ``docs/`` and are left out. Front matter (``title``, ``description``, ``sidebar_position``,
  ``sidebar_label``, in various sets) on every page but ``_v4-in-progress.mdx``, a front-matter-less MDX fragment of one ``:::warning``
  admonition that twelve pages import and render as a component (``import Helm4 from
  "/docs/_v4-in-progress.mdx"`` then ``<Helm4/>``); ten section pages that are a heading, a sentence and
  ``<DocCardList />``; ``sdk/examples.mdx`` whose Go code is pulled in by ``!!raw-loader!`` imports the
  tree lacks (``<CodeBlock>{InstallExampleGo}</CodeBlock>``); Docusaurus admonitions (``:::note``,
  ``:::tip``, ``:::warning``, ``:::info``); links written as site paths with the file's suffix
  (``/topics/charts.mdx#the-chartyaml-file``), a few into the excluded command pages
  (``/helm/helm_create.md``) or the site's community pages the tree lacks (``/community/related``).
- ``flask``: every ``docs/**/*.rst`` of pallets/flask at 2ac89889f4cc (there is no ``.md``) — Flask's
  documentation as Sphinx builds it, 76 pages, 463 KB: installation, the quickstart, the eleven-step
  Flaskr tutorial, the user's guide (templates, testing, error handling, debugging, logging,
  configuration with its 29 ``.. py:data::`` config keys, signals, class-based views, the application
  structure and lifecycle, the app and request context, blueprints, extensions and writing them, the
  CLI, the development server, the shell, async with gevent and ``async``/``await``, security), 23
  pattern pages and their index, the deployment pages (Gunicorn, Waitress, mod_wsgi, uWSGI, gevent,
  ASGI, nginx, Apache httpd, the proxy fix) and the design notes; the API reference (``api.rst``, 21 KB) is 51 autodoc
  directives (``.. autoclass:: Flask`` with ``:members:``) whose text lives in the code, beside the
  signals and URL-rule notes written out. reStructuredText roles throughout (130 ``:doc:``, 24
  ``:ref:``, 23 ``.. _label:`` lines, about 490 ``:data:``/``:meth:``/``:func:``/``:class:``/``:attr:``
  cross-references, intersphinx targets ``:doc:`werkzeug:test```, ``:gh:`` links into the repository's
  examples), ``.. tabs::`` blocks of shell variants, ``.. currentmodule::`` lines; six stubs: the
  changelog (``.. include:: ../CHANGES.rst``, outside ``docs/``, so empty), the licence
  (``.. literalinclude:: ../LICENSE.txt``), the contributing page of one link, and three ``:orphan:``
  pages kept for old links (``reqcontext.rst``, ``patterns/jquery.rst``, ``deploying/eventlet.rst``) of a
  sentence pointing to their successor.
- ``mkmat``: every ``docs/**/*.md`` of squidfunk/mkdocs-material at 5b36f2ac499a — Material for MkDocs'
  own manual, written with the theme's extensions, 96 pages, 1.06 MB: getting started, creating and
  publishing a site, customization, the setup guides (colors, fonts, language, logo and icons,
  navigation, header, footer, search, analytics and feedback, data privacy and cookie consent, social
  cards, blog, tags, versioning, git repository, comments, offline and optimized builds), the Markdown
  extension pages, the reference of authoring features (admonitions, annotations, code blocks, content
  tabs, diagrams, grids, icons, images, math, tooltips...), the twelve built-in plugin pages and their index
  (``projects`` and ``typeset`` with ``status: deprecated``), the blog and social-card tutorials, the
  contributing guides, a 76 KB upgrade guide of template diffs, the 105 KB changelog and the 42 KB
  Insiders changelog with ``{ id="9.7.6" }`` heading ids (660 attribute-list headings in 12 pages), the
  Insiders pages (``insiders/index.md`` a redirect of front matter alone), and the blog: 13 dated posts
  and an index of one heading, kept since they are few and several carry the project's current state
  (Insiders free for everyone, maintenance mode, MkDocs 2.0, Zensical). Front matter on 47 pages
  (``icon``, ``title``, ``description``, ``status``, ``template``; ``date``, ``authors``,
  ``categories``, ``slug``, ``links`` on the posts), ``!!!``/``???`` admonitions (137 in 46 pages),
  content tabs (``=== "Tab"``, 330 in 43 pages), icon shortcodes (``:material-…:``, 435 in 56 pages),
  and the site's own macros as HTML comments (``<!-- md:version 9.7.0 -->``, ``<!-- md:setting
  config.enabled -->``, 1,049 in 45 pages), 182 of them the whole text of a setting's heading in the
  plugin pages (``#### <!-- md:setting config.post_url_format -->``, linked as ``#config.post_url_format``);
  ``assets/`` and ``schema/`` hold no Markdown, and the link definitions the site appends to every page
  with snippets (``includes/mkdocs.md``: ``[mkdocs.site_url]: https://www.mkdocs.org/…``) live outside
  ``docs/``, so the pages' references to them (``[`site_url`][mkdocs.site_url]``, 65 in 14 pages) have
  no definition in the tree.
- ``tekton``: every ``teps/**/*.md`` of tektoncd/community at 1f8ddde5add3 but ``teps/tools/`` (the TEP
  automation script's README: ``--exclude tools``; the template is ``tools/tep-template.md.template`` and the
  index's ``README.md.mustache``, neither read) — the Tekton Enhancement Proposals, 146 TEPs (3–64 KB, 2.7 MB in all:
  Pipelines, Triggers, Results, Chains and supply-chain security, the catalog and hub, the CLI, the process) and
  the generated ``README.md`` index, a table of number, title, status and last update for every TEP, kept as the
  project's overview. KEP-style YAML front matter on every TEP (``title``, ``authors``, ``creation-date``,
  ``last-updated``, ``status``: 84 implemented, 36 proposed, 19 implementable, 3 deferred, 3 withdrawn, 1
  implementing, none ``replaced``; ``see-also`` on 21, ``collaborators``, ``contributors``); ``superseded-by`` on
  two (0023 ``[TEP-0107]``, 0033 ``[TEP-0138]``) and ``replaces`` on one (0107 ``[TEP-0023]``), written as TEP
  numbers in lists (``replaces`` is not a key the link graph reads: 0107's makes no edge, 0023's
  ``superseded-by`` makes the one); the withdrawn and deferred TEPs say why in an italic note under the front
  matter (0044: StepActions cover its use cases) or in their summary (0092: deferred for queueing in
  TEP-0132); 277 table-of-contents links name template headings left empty (their body only an HTML comment,
  or none) whose anchors the index does not keep, so they are reported dangling; later TEPs name the earlier ones
  they refine in the text (0121 changes 0069's retry timeouts, 0114 renames 0002's ``Run`` to ``CustomRun``, 0115
  replaces 0003's directory versioning); HTML comments (template guidance, ``<!-- toc -->``) in 143, links to other TEPs
  written as files (``0090-matrix.md``), as GitHub URLs of ``tektoncd/community`` (some to files since renamed,
  ``0044-decouple-task-composition-from-scheduling.md``) or as pull requests; diagrams in ``images/``, which holds
  no Markdown; 7 current-vs-replaced pairs in 12 phrasings (``tekton.pairs.jsonl``), 4 marked (8 phrasings).
- ``myst``: every ``docs/*.md`` of jupyter-book/mystmd at 1ad857c61d78 — the MyST Markdown guide
  (mystmd.org/guide) written in MyST itself, 89 pages in one flat folder, 621 KB: the tutorials,
  configuration and front matter (a 27 KB field reference), the authoring pages (typography,
  admonitions, figures, math, tables, code, cross-references, external references, embedding,
  citations, proofs, exercises, glossaries, LaTeX input), executable content (notebooks, Markdown
  notebooks, in-page execution, launch buttons), the website pages (themes, navigation, metadata,
  styles, downloads, six deployment targets, landing pages), the exports (PDF with LaTeX or Typst,
  Word, JATS, CITATION.cff), plugins, the reference and "about" pages, and the contributor and
  developer guides (``developer.md``, 43 KB), several of which the site's ``myst.yml`` table of
  contents leaves out; no folder needs leaving out (``images/``, ``thumbnails/``, ``videos/``,
  ``public/``, ``equations/`` hold no Markdown) and the one notebook (``interactive-notebooks.ipynb``)
  is not Markdown, so not copied. Front matter (``title``, ``short_title``, ``subtitle``,
  ``description``, ``thumbnail``, ``numbering``, ``kernelspec``) on 84 pages; directives in colon
  fences (``:::{note}``, 425 in 73 pages) and backtick fences (`` ```{code-block} ``, 540 in 67),
  often shown inside ````` ````{myst} ````` demo fences; 207 ``(label)=`` targets in 52 pages,
  356 links to a ``#label`` target (``[](#label)``, ``[text](#label)``) in 59 pages beside relative
  ``[](./page.md)`` links, ``xref:`` links into other MyST projects and Sphinx inventories (44 in
  13 pages), ``<wiki:…>`` links, 201 ``{myst:directive}``/``{myst:role}`` roles, a few ``{ref}`` and
  ``{doc}`` roles, ``%`` comment lines and ``+++`` block breaks. Eight pages hold directives that
  the site's own plugins (``directives.mjs``, ``templates.mjs``, ``versions.mjs``,
  ``error-rules.mjs``) fill at build time, so their text is absent from the tree: ``directives.md``
  and ``roles.md`` are lists of empty ``:::{myst:directive} figure`` blocks, ``versions.md`` a
  ``{myst:versions}`` block, and the option tables of some directives (card, grid, tabs, exercise,
  solution, proof), of the two themes (``website-templates.md``) and of the error rules
  (``settings.md``) are missing.
- ``tfrfcs``: every ``rfcs/**/*.md`` of tensorflow/community at 185530183d8f — TensorFlow's design
  RFCs (2018–2023), 127 pages, 2.6 MB: 118 dated RFCs (2–104 KB: TF 2.0's functions, variables,
  SavedModel and namespaces, tf.data, Keras, distribution strategies and parameter servers, modular
  TensorFlow's C APIs for filesystems, kernels, devices, graph optimizers and profilers, TFX, TF
  Lite, SIG charters), seven companion pages in per-RFC folders (a filesystem review, the
  StreamExecutor C API's versioning strategy, a device plugin tutorial and sample README, two
  tables of kernel methods, FuncGraph user journeys), the README and the template. No front
  matter: each opens with a table of Status (Accepted, Approved, Implemented, Proposed), RFC #,
  Author(s), Sponsor, Updated — written without its outer pipes on 16 pages, once with
  non-breaking spaces after a byte-order mark (``20181116-saved-model.md``), once with ``:``
  continuation rows (``20210307-tfx-api-artifact-compat.md``); no page is marked superseded: one
  says it is "published for historical informational purposes only", one was "merged into another
  planned update", later RFCs name the earlier ones they rework in the text; ``{#id}`` heading
  ids on two pages, ``<a id>`` table anchors in the TFX IR page; 131 images and the plugin
  sample's code in folders not copied (59 dangling image links); 8 current-vs-replaced pairs
  (``tfrfcs.pairs.jsonl``), 3 marked.

- ``runbooks``: every ``alerts/**/*.md`` of openshift/runbooks at 82bd2d9d3789 — OpenShift's alert
  runbooks, 272 pages, 658 KB, in one folder per operator (17: the virtualization operator's 89, the
  storage operator's 63 with 12 ``helpers/`` pages the runbooks link to, monitoring 34, network
  observability 14, etcd 10, machine config 10, cluster network 10, ...) and one at the top: nearly
  every page one template (``# AlertName``, ``## Meaning``, ``## Impact``, ``## Diagnosis``,
  ``## Mitigation``), no front matter, so pages differ in their alert's name and a few lines, and whole
  families are near copies (``virt-api``/``virt-controller``/``virt-handler``/``virt-operator`` each
  with ``*Down``, ``NoReady*``, ``LowReady*``, ``*RESTErrorsBurst``/``*RESTErrorsHigh``; three NooBaa
  capacity pages at 85/95/100%; fourteen network observability health-rule pages sharing their
  configuration sections word for word); thirteen virtualization pages titled ``[Deprecated]``
  (three a one-line stub, "This alert is deprecated. You can safely ignore or silence it.", ten
  keeping their runbook under that line: the four ``*RESTErrorsHigh``, ``KubeMacPoolDuplicateMacsFound``,
  ``OperatorConditionsUnhealthy`` beside its near copy ``HCOOperatorConditionsUnhealthy``,
  ``SSPOperatorDown`` naming ``SSPDown`` as its duplicate), two moved stubs in the monitoring folder ("This alert has been moved
  to [alerts/cluster-kube-apiserver-operator/KubeAPIDown.md](https://github.com/…)", an absolute URL),
  two OVN pages that apply only to OCP 4.13 and earlier beside their successors (not named); two
  etcd pages in another form (an impact table, "Alert Expression", links to an internal SOP
  repository); links to ``./hierarchy/alerts-hierarchy.svg`` (not Markdown, not copied); 10
  current-vs-replaced pairs (``runbooks.pairs.jsonl``), 5 marked.

- ``k8sdocs``: every ``content/en/docs/concepts/**/*.md`` and ``content/en/docs/tasks/**/*.md`` of
  kubernetes/website at 5f35e270f9c2 (2023-09-26; the other folders of ``content/en/docs`` and its two root
  files left out with ``--exclude``) — the Kubernetes documentation's concepts (135 pages) and tasks (202), 337
  pages, 3.9 MB: architecture, workloads, services and networking, storage, configuration, security,
  policies, scheduling and eviction, cluster administration, extending Kubernetes, Windows; the task pages
  for configuring pods, administering clusters (kubeadm, etcd, DNS, encryption, dockershim migration),
  debugging, jobs, TLS and installing kubectl. Hugo front matter (``title``, ``content_type`` on 296,
  ``weight``, ``reviewers`` on 168, ``description``, ``card``, ``headless: true`` on the nine
  ``tasks/tools/included/`` fragments other pages pull in with ``{{< include >}}`` and ``{{< tab include=… >}}``);
  the site's shortcodes in the text (569 ``{{< glossary_tooltip >}}`` in 167 pages, 586 ``{{< note >}}``/
  ``{{< caution >}}``/``{{< warning >}}`` in 192, 197 ``{{< feature-state >}}`` in 102, 365
  ``{{% heading "whatsnext" %}}`` headings, 155 ``{{< skew >}}`` version placeholders), ``<!-- overview -->``
  and ``<!-- body -->`` section comments, and 216 ``{{% code_sample file="…" %}}`` lines in 91 pages whose
  YAML lives in ``content/en/examples/``, which the tree lacks; 2,369 links written as the site's URLs
  (``/docs/concepts/storage/volumes/#secret``), many into the excluded reference, setup and tutorial pages.
  Lifecycle stated in the text only: PodSecurityPolicy removed in favour of Pod Security Admission,
  ReplicationController superseded by ReplicaSet and Deployment (its ``description``), a moved page left as a
  one-line pointer (``concepts/cluster-administration/certificates.md``); 3 current-vs-replaced pairs in 5
  phrasings (``k8sdocs.pairs.jsonl``), all stated.
- ``wezterm``: every ``docs/**/*.md`` of wezterm/wezterm at 4ff581a8aa34 (2025-02-23) — a terminal
  emulator's user documentation, 596 pages, 3.5 MB: installation, configuration guides (files, fonts,
  appearance, keys, key tables, mouse, launching, plugins), multiplexing and SSH, shell integration,
  scrollback, copy mode, quick select, FAQ and troubleshooting, the CLI, and ~480 short reference pages,
  one per Lua config option, key assignment action, event, function and object method
  (``config/lua/**``; one 664 KB table of nerd font glyphs). Front matter (``tags``, some ``title``) on
  217; MkDocs macros in the text (``{{since('…')}}`` on 485, ``{% include "../examples/…" %}`` of
  CLI help files the tree lacks on 30), ``!!! note`` admonitions, links to folder ``index.md`` pages
  the site generates. Deprecated actions, options, events and functions name their replacement
  (``wezterm.pairs.jsonl``, all stated). Taken for microsoft/vscode-docs, whose snapshot (1.08 GB) is
  too large to fetch.

- ``basecamp``: every ``*.md`` of basecamp/handbook at c9536061f26d (2026-05-01) — the 37signals employee
  handbook, 16 pages in one flat folder, 108 KB: the README index, getting started, benefits and perks
  (insurance, PTO, sabbatical, summer hours, leave, profit sharing, stipends, expenses), how we work
  (remote, 6-week cycles, cooldown, check-ins, heartbeats and kickoffs), career levels and pay, work
  devices, internal systems, moonlighting, rituals, state leave provisions, severance, and five titles
  pages that are one wide table each (a level per column, a proficiency per row, cells of 100–700
  characters). No front matter; each page opens with an ``#`` title. Links written as absolute
  ``github.com/basecamp/handbook/blob/master/…`` URLs (one pinned to an older commit), none relative; a
  tool replaced in the text only (Shipshape "gradually being superceded by Kandji", both on one page).
- ``postmortems``: every ``data/*.md`` of icco/postmortems at f901e76eb5f4 (2026-08-06) — a collection of
  public incident postmortems, 242 pages in one flat folder named by UUID, 545 KB: one outage, breach or
  engineering disaster each (cloud providers, CDNs, SaaS, databases, power grids, spacecraft), a few
  paragraphs retelling the company's report. YAML front matter on every page (``uuid``, ``url`` of the
  original report, ``categories``, ``company``, ``product``, most with ``title``, ``keywords`` and a
  one-paragraph ``summary``; 46 have no title, 47 no summary); no headings, no relative links, 28 inline
  links out. Some incidents kept twice under two UUIDs (Knight Capital, Basecamp, Kickstarter, Netflix,
  Allegro, ARPANET, Travis CI, OWASA, Slack, Google's quota service, Azure storage). No lifecycle.
- ``astro``: every ``src/content/docs/en/**/*.mdx`` of withastro/docs at 741c1b8 (2026-08-21) — Astro's
  English documentation as its Starlight site keeps it (420 pages, 4.0 MB; the other languages' folders
  left out; Tailwind's site, tailwindlabs/tailwindcss.com, was too large to fetch): guides, 19
  integration pages, 33 deploy and 55 CMS/backend service pages of one shape, 15 migration guides, seven
  upgrade guides (v1–v7), recipes, the tutorial in numbered files (``tutorial/2-pages/3.mdx``), the API
  and configuration reference, and 148 generated error pages (``reference/errors/*.mdx``). MDX ``import``
  lines on 396 pages and site components in the text (``<Since v="6.0.0" />``, ``<Steps>``,
  ``<ReadMore>``, ``<PackageManagerTabs>``, ``<SourcePR number=…/>``), ``:::caution[Deprecated]`` asides,
  links written as the site's URLs (``/en/guides/prefetch/#…``); four integration pages deprecated or
  removed in favour of a guide; 6 current-vs-replaced pairs (``astro.pairs.jsonl``), all marked in the text.
- ``npmrfcs``: every ``*.md`` of npm/rfcs at 520fe7d8a0e9 (2026-06-23) but ``.github/``, ``test/``, the two
  automation pages of ``docs/`` and the code of conduct, security and contributing pages (``--exclude``) — the
  npm CLI's RFCs and the notes of its Open RFC calls, 158 pages, 1.06 MB: the README (the process: drafting,
  ratification, the ``accepted/`` → ``implemented/`` move, withdrawal by an amendment section) and a generated
  ``INDEX.md`` table; 54 numbered RFCs (0001–0056; 0040 and 0041 do not exist) and two templates in three
  status folders, ``accepted/`` (6 and the template), ``implemented/`` (42) and ``withdrawn/`` (6 and the
  template), 1.9–67 KB (package aliases, peer-dependency installation and conflicts, workspaces, overrides,
  lockfile and lifecycle-script changes of npm 7, isolated mode, provenance and signatures, and five long 2026
  RFCs: install scripts opt-in, native patching, ``packageExtensions``, ``.npm-extension.mjs``, 40–67 KB); and
  100 dated meeting notes in ``meetings/`` (2019-09-04 to 2022-08-17, 1–12 KB, 450 KB in all). YAML front
  matter on the 56 RFC files, filled by a bot (``title``, ``number``, ``status``: 42 implemented, 6 accepted,
  7 withdrawn counting its template, 1 proposed — the other template; ``created``/``accepted_at`` on 6,
  ``implemented_at`` and ``implementation`` on 12, all dated 2026 by the backfill, ``withdrawn_at`` on one);
  five titles written as quoted YAML strings (backticks, colons), one holding a Markdown link (0046); 0050's body has no ``#`` title. The meeting
  notes have no front matter: each opens with an ``####`` date line above the ``#`` title ("Open RFC Meeting
  (npm)", "Deep Dive"), then attendees, an agenda of PRs and issues named by number (``#343``, ``#488``, not by
  RFC number) and notes keyed to agenda numbers (``[4]``) or headings; HTML entities left in titles (``&#x60;``,
  414 in 56 notes), 1,015 links to npm/rfcs, npm/cli and npm/arborist issues and PRs, date lines that
  disagree with the file name (``2020-09-09.md``–``2020-09-23.md`` say 2019, ``2020-04-16.md`` April 15th,
  ``2022-02-09.md`` February 2nd, ``2020-03-11.md`` March 10th). Lifecycle is stated by folder and
  ``status``, by ``**IMPLEMENTED**`` lines in three early RFCs and by the ``# Withdrawal Amendment`` section at
  the top of each withdrawn RFC (four naming the June 16, 2021 call that withdrew them, 0006's left as
  template comments, 0009 "Overridden by 0036-overrides"); 0036 says it "supercedes and replaces" 0009 through
  a link to ``../unaccepted/``, a folder that no longer exists, and other RFCs link to each other as
  ``github.com/npm/rfcs/blob/<ref>/accepted/…`` URLs whose files have since moved to ``implemented/``;
  template placeholders (``{{…}}``) left in 0007; the decisions on many proposals that never became RFCs
  (npx deprecation, nohoist, ``npm query``, engine-strict, save-prefix) are only in the notes. 4
  current-vs-replaced pairs in 8 phrasings (``npmrfcs.pairs.jsonl``), 1 marked (3 phrasings).
- ``msc``: every ``proposals/*.md`` of matrix-org/matrix-spec-proposals at 82e317705068 (2026-07-13) — the
  Matrix spec proposals (MSCs) merged into the repository, 260 pages in one flat folder named
  ``<number>-<slug>.md``, 1.75 MB, 420 B–43 KB (``4186-simplified-sliding-sync.md``, ``4284-policy-servers.md``,
  ``2312-matrix-uri.md`` the longest): end-to-end encryption (key backup, secret storage, cross-signing,
  verification, one-time and fallback keys, withheld keys, history sharing), room versions 2–12 and the
  proposals that made each the default, state resolution, redaction rules, upgrades, restricted and knock
  join rules, spaces, threads, relations (edits, reactions, aggregations), mentions and push rules, media,
  the OAuth 2.0 "next-generation auth" family, federation discovery, application services, identity
  servers, moderation and reporting, VoIP, the governance and process proposals, and the template
  (``0000-proposal-template.md``). No front matter and no status line: an MSC's state lives in the
  GitHub pull request's labels, not the file (one, 1779, says it "exists for historical reference"). Most pages
  open ``# MSCnnnn: Title`` and follow the template's sections (Proposal, Potential issues, Alternatives,
  Security considerations, Unstable prefix); two use setext headings (1219, 1543), one opens with an author
  and dates list (1442), two open with ``##`` (4289, 4291), and 1812's title says "MSC 1813". Links are
  nearly all absolute: ~580 to ``github.com/matrix-org/matrix-doc`` or ``matrix-spec-proposals``
  ``pull/<n>``/``issues/<n>`` (an MSC is cited by its pull request number, which is the file's number
  prefix, so the link graph has no edge to the file), 28 ``blob/<ref>/proposals/<file>.md`` URLs, ~570
  ``spec.matrix.org`` and ~160 old ``matrix.org/docs/spec`` pages; one relative link between pages (2077 to
  ``./2002-rooms-v4.md``); 186 reference-style link definitions in 44 pages, footnotes in 20, GitHub
  alerts (``> [!Note]``) in 3, mermaid diagrams in 4. The diagrams (24 files in ``proposals/images/``: PNG, GIF, SVG
  and their ``.dot``/``.txt`` sources, and ``1501-split-dag.png`` beside the pages) are not copied: the 9
  Markdown image links (one remote) and the HTML ``<img>`` tags (11 in 4297 with root-absolute
  ``src="/proposals/images/…"``, one in 4291) dangle. Lifecycle is stated in the text only: 2229 "has been
  made obsolete by MSC2290" (and 2290 "obsoletes MSC2229"), deprecations later removed by their own MSC
  (4126→4127 query-string auth, 4156→4213 ``server_name``, 3700→4381 ``sender_key``, 1802→4376 v1
  ``send_join``), amendments that change an earlier MSC (2472 drops 1219's ``passthrough``, 1831 reorders
  1708's lookups, 1884 changes 1659's event ID alphabet, 2557 relaxes 2010, 3844 removes 2313's sharing,
  3916 drops 3860's ``allow_redirect``), the default room version moving 2334→2788→3589→3904→4239→4304, and
  later MSCs that replace an earlier one's behaviour without naming it (3925 on 2676's server-side edit
  replacement, 4190 on 2778's appservice login, 4297 on 1442's state resolution, 4142 and 4210 on 3952); several
  "supersedes" lines name proposals that are not in the tree (MSC455, 1215, 1318, 1849,
  1888, 1902, 3061, 3575). 27 current-vs-replaced pairs in 36 phrasings (``msc.pairs.jsonl``), 13 marked
  (18 phrasings).
- ``tofu``: every ``website/docs/**/*.mdx`` and every ``rfc/**/*.md`` of opentofu/opentofu at f831fa1aa4b9
  (2026-08-22), built twice from one checkout and merged into one tree, the user documentation under
  ``02_knowledge/tofu/`` and the RFCs under ``02_knowledge/tofu-rfc/`` (the repository's ``docs/`` folder of
  developer notes, which some RFCs link to, is not copied) — OpenTofu's user documentation as its Docusaurus site
  keeps it, 324 pages, 1.49 MB: the introduction (what it is, the core workflow, use cases, TACOS, comparisons,
  what's new in 1.11, upgrading, the Terraform migration guides, eleven install pages), the CLI (41 command pages,
  the CLI configuration file and environment variables, workspaces, state manipulation, import, cloud backend,
  OCI registry integrations, plugin signing), the language (213 pages: syntax, files and the ``.tofu`` extension
  precedence, expressions, 125 one-function pages, meta-arguments with ``enabled``, modules, providers with
  ``for_each``, resources and provisioners, ephemerality, checks, import blocks, state and state encryption,
  twelve backend pages, the v1.x compatibility promises) and the internals (JSON formats, machine-readable UI,
  registry, network-mirror, login and service-discovery protocols, tracing, debugging); beside them the 52 RFCs,
  0.79 MB, 0.8–67 KB: 39 dated proposals named ``yyyymmdd-title.md`` (one ``2025-07-22-…``), the README (the
  process), the template, and two proposals with a folder beside them (the OCI registries RFC, an index and ten chapters
  with « Previous / Up / Next » tables; an ancillary page of the static evaluation RFC) — the registry design of
  2023 (Homebrew-like repository, GPG keys, version bumping, pre-generated responses, submission by issue), static
  evaluation, ``.tofu`` overrides, ``-exclude``, the provider cache lock, module variable deprecation, OCI, S3 and
  Postgres locking, tracing, ephemeral resources, the ``enabled`` field, provider lock hashes, the new
  evaluation/plan/apply architecture, the CLI library switch, linting, security advisories, the ``convert`` and
  ``assume…`` functions, ``provider_meta``, and the process RFCs. Front matter on every page but none of the RFCs:
  ``description`` on 322 (folded ``>-`` and ``|-`` blocks; ``index.mdx`` and ``language/providers/builtin.mdx``
  have none), ``sidebar_label`` on 160, ``sidebar_position`` on 29, ``title`` on 6; ``language/state/encryption.mdx``
  and seven OCI chapters have CRLF line endings (the page's front matter opens ``---\r``), and one chapter
  (``5-modules.md``) opens with a blank line. MDX: ``import`` lines on 16 pages, 99 ``!!raw-loader!`` imports on
  11 pages whose code (``.tf``, ``.tofu``, ``.sh``, ``.ps1``, ``.json``, ``.go``, ``.py`` examples in
  ``examples/`` folders the tree lacks) is shown through ``<CodeBlock>{AWSKMS}</CodeBlock>`` inside
  ``<Tabs>``/``<TabItem>``, so the state encryption page (34 imports), the ``tofu test`` page (36) and the
  install pages carry their prose but none of their configuration examples; ``<DocCardList items={[…]}>`` as
  the whole body of ``index.mdx`` and ``intro/install/index.mdx``, ``<Admonition>``, ``<Button>`` and a
  ``<Buildkite />`` component from a ``.jsx`` file; Docusaurus admonitions (``:::note``, ``:::warning`` with
  titles such as ``:::warning Experimental Feature!``, ``:::danger``, ``:::tip``, ``:::info``: 234 in 116 pages);
  MDX comments used as heading anchors (``### External {/* #external-key-provider */}``), two ``{#id}`` heading
  ids, reference definitions that name in-page anchors (``[inpage-const]: #marking-variable-as-const``, whose
  heading says "constant"); ``#`` comment lines in shell fences (14 in the Docker page) that read as headings
  outside a fence-aware parser. Links written as relative files with the suffix (``../../cli/commands/plan.mdx#replace-address``,
  1,433), beside site paths without suffix (``../state/encryption/``, ``migration-guide``,
  ``../../files/#extension-precedence``), root-absolute paths with and without ``/docs`` and suffix
  (``/language/modules/sources.mdx``, ``/docs/intro/install``) and 377 absolute URLs; the RFCs link to each
  other by file name, to ``opentofu.org/docs/…`` pages, to GitHub issues, and to the repository's ``docs/``,
  ``CONTRIBUTING.md`` and ``MAINTAINERS`` outside the tree, and four of their relative links dangle by typo
  (``20230303-linter-policy.md``, ``2024113-pragmatic-complexity-linting.md``, ``9-auth-implementation-details.md``,
  the ancillary page's ``20240513-static-evaluation.md`` missing ``../``). The RFCs have no front matter and no
  status line: each opens with ``# Title`` and usually an ``Issue:`` line (22), seven say they were "ported from the
  old RFC process", GitHub alerts (``> [!NOTE]``, ``[!IMPORTANT]``, 97 in 36 files), mermaid diagrams in three.
  Lifecycle is stated in the text only: the cobra RFC "has been superseded by" the urfave one (and the urfave RFC
  "has superseded" it), the complexity-linting RFC "was later superseded by [Linter Policy]" through a mistyped
  link, the RFC process RFC points to the "subsequent proposal" of tracking issues, the ``provider_meta`` RFC
  decides what the module-settings RFC deferred, the 2023 "temporary" GPG-key workaround precedes the key
  verification design without naming it; in the user docs ``tofu env``, ``tofu taint`` and ``tofu refresh`` are
  marked deprecated in favour of ``tofu workspace``, ``-replace`` and ``-refresh-only``, the ``remote`` backend
  points to the ``cloud`` block, and ``language/state/import.mdx`` is a stub pointing to the import page; 18
  current-vs-replaced phrasings of 11 pairs (``tofu.pairs.jsonl``), 6 pairs marked (13 phrasings).
- ``k8scomm``: every ``**/*.md`` of kubernetes/community at 24e7d8f5409c (2026-08-21) but ``.github/``,
  ``hack/`` and ``generator/`` (``--exclude``: the PR template, the scripts, and the README generator's
  templates and test data) — the Kubernetes contributor community's own repository, 960 pages, 11.6 MB: the
  governance pages at the root (governance, community membership, the SIG/WG lifecycle checklist, values,
  liaisons, the generated ``sig-list.md``, CLA, security policy), ``contributors/`` (98: the contributor guide
  with its cheat sheet and eleven translations ``README-xx.md``, and ``devel/`` developer pages by SIG: API
  conventions at 116 KB, API changes, feature gates, conformance, e2e and flaky tests, logging and metrics,
  cherry picks, the scheduler), ``committee-steering/`` (17: the SIG charter guide, SIG and WG governance,
  annual reports, six yearly meeting-note archives), ``committee-code-of-conduct/`` (9: charter, incident
  process, elections, transparency reports), ``communication/`` (45: Slack, Zoom, YouTube, mailing list,
  calendar and moderation guidelines, contributor comms handbooks, four community meeting note dumps),
  ``github-management/`` (13), ``mentoring/`` (41), ``events/`` (99: contributor summit notes and retros
  2014–2024, the events team handbooks, awards), ``elections/`` (180: a voters' guide per steering election
  2017–2026 with 123 candidate bios, results and message templates, the election HOWTO, the Code of Conduct
  committee elections of 2023 and 2025), 24 ``sig-*`` and 9 ``wg-*`` folders (README, charter, CONTRIBUTING,
  position statements, the scalability SLO pages, and 182 ``annual-report-YYYY.md`` in all, counting the
  archive's) and ``archive/`` (66: 28 retired SIGs, WGs and user groups, the incubator process). 62 READMEs,
  ``sig-list.md`` and ``liaisons.md`` are generated from ``sigs.yaml`` (a "This is an autogenerated file!"
  comment, hand-written text only between ``<!-- BEGIN CUSTOM CONTENT -->`` and ``<!-- END CUSTOM CONTENT -->``);
  76 meeting-note archives exported from
  Google Docs hold 6.3 MB, more than half the bytes (``sig-node/archive/ci-subgroup-notes-2020.md`` is 1.38 MB,
  nearly all of it 23 base64 PNGs in ``[imageN]: <data:image/png;base64,…>`` definitions). YAML front matter on
  43 pages (``title``, ``weight``, ``description``, ``aliases``: the contributor site's Hugo keys); the 79
  candidate bios and ballot descriptions in ``elections/`` open instead with an Elekto ``name:``/``ID:``/``info:``
  block between lines of dashes, which Markdown reads as rules and text; 32 pages have no ``#`` heading. Links:
  ~3,000 reference-style definitions, root-absolute paths (``/community-membership.md``: 267 inline, 405
  definitions) beside relative ones and ``git.k8s.io/community/…`` and ``github.com/kubernetes/community/blob/
  master/…`` URLs to pages that are in the tree, ~2,400 Google Docs links (agendas, notes, recordings); of ~1,570
  in-repo link targets ~360 dangle (192 PNG diagrams not copied, ``/sigs.yaml``, the excluded ``/generator``, 35
  moved or removed pages). One page is not UTF-8
  (``events/2017/05-leadership-summit/session-notes/1345-1430_SIGGOVERNANCE.md``), one has CRLF line ends, exported
  notes keep HTML entities (``isn&#39;t``) and stray HTML in titles (``Retrospective</p>``), the election
  templates ``{{YEAR}}`` placeholders. Lifecycle is stated in the text: tombstones ("This file has moved to …",
  ``godep.md`` "Kubernetes now manages dependencies using go modules. See current documentation …",
  ``cri-validation.md`` "DEPRECATED and WILL BE REMOVED", "Design proposals have been archived"), "IMPORTANT -
  The Kubernetes Incubator process is now deprecated and has been superseded by Kubernetes subprojects", WG Apply
  "Superseded by [wg-api-expression](/wg-api-expression/README.md)" (a link that dangles now that both sit in
  ``archive/``), "This SIG replaces the Security Audit Working Group", "Flexvolume is deprecated", the community
  meeting's "⚠️ DEPRECATED", the Submit Queue "replaced by Tide", the election HOWTO that "replaces older
  documentation where present", discontinued and paused mentoring programmes; retired groups are moved to
  ``archive/`` without a pointer to their successor, a re-formed WG LTS sits beside its archived predecessor, and
  each year's election folder beside the last. 13 current-vs-replaced pairs in 25 phrasings
  (``k8scomm.pairs.jsonl``), 7 marked (15 phrasings).
- ``stellar``: every ``**/*.md`` of stellar/stellar-protocol at d186cf3187722 (2026-08-20) but ``.github/`` and
  ``.claude/`` — Stellar's protocol proposals, 170 pages, 3.3 MB: 100 Core Advancement Proposals (``core/``,
  protocol and Soroban smart-contract changes, with the split-up ``cap-0046-01…12`` and ``cap-0071-01/02``), 59
  Ecosystem Proposals (``ecosystem/``: wallet, anchor and token standards), 6 Limits Proposals (``limits/``), the
  index READMEs with their status tables, two templates, the root README and CONTRIBUTING. No YAML front matter:
  each proposal opens with a fenced preamble under ``## Preamble`` (``CAP:``/``SEP:``/``SLP:``, ``Title``,
  ``Author``, ``Status``, ``Created``); 68 Final, 51 Draft, 17 Active, 9 Rejected, 9 Implemented, 4 Accepted.
  Lifecycle is stated in the status line ("Rejected (In favor of CAP-0018)", "Abandoned (in favor of SEP-6)",
  "Active (Interactive components are deprecated in favor of SEP-24)") or in a section ("## Rejected" /
  "Superceded by [CAP23](https://github.com/stellar/stellar-protocol/blob/master/core/cap-0023.md)", a
  deprecation notice in SEP-0003 recommending SEP-0024); later accepted proposals absorb earlier rejected ones
  on the same subject without saying so. 15 current-vs-replaced pairs in 18 phrasings (``stellar.pairs.jsonl``),
  7 marked (10 phrasings).
- ``mastodon``: every ``**/*.md`` of mastodon/documentation's ``content/en`` at 2903485da54a (2026-07-02) —
  Mastodon's documentation site, 193 pages, 1.8 MB: the admin guide (install, a 49 KB environment-variable
  reference, scaling, ``tootctl``, troubleshooting, object storage), API guidelines (OAuth scopes, rate limits,
  datetime formats), client tutorials, developer and frontend guides, the federation specs (ActivityPub, HTTP
  signatures, WebFinger), the user guide, 73 entity and 56 method reference pages (the zh-cn, ja and pl
  translations live elsewhere and are not copied). Hugo front matter (``title``, ``description``, ``menu``,
  ``aliases``) on every page, ~1,850 shortcodes (``{{< relref >}}``, ``{{<required>}}``, ``{{< caption-link >}}``, ``{{< hint >}}``) and
  ``{{%deprecated%}}``/``{{%removed%}}`` markers on 17 pages. Lifecycle: ``V1_NotificationPolicy.md`` says it is
  deprecated and points to the current entity, ``notifications_alpha.md`` is "kept for historical purposes only"
  beside ``grouped_notifications.md``; ``V1_Filter`` and ``V1_Instance`` are deprecated only on the methods
  pages ("4.0.0 - deprecated"). 4 current-vs-replaced pairs in 8 phrasings (``mastodon.pairs.jsonl``), 2 marked
  (4 phrasings).
- ``nips``: every ``**/*.md`` of nostr-protocol/nips at db5fe3de8c5d (2026-07-22) — Nostr's Implementation
  Possibilities, 99 pages (98 NIPs and the README), 0.63 MB, flat and named by a hex-ish number (``01.md``,
  ``5A.md``, ``B7.md``). No front matter: each NIP opens with a setext title that is only its id (``NIP-17`` over
  ``======``), its name as a second-level heading under it, then a line of tags in code (`` `draft` `optional` ``).
  Lifecycle: a warning above the title on 13 pages, "> __Warning__ `unrecommended`: deprecated in favor of
  [NIP-17](17.md)", "… try [NIP-29](29.md) instead", "… superseded by the [Marmot Protocol](…)" (outside the
  corpus); four stubs merged into NIP-01 ("Moved to [NIP-01](01.md).", 'Renamed to "Addressable events" and moved
  to [NIP-01](01.md).'); parts deprecated inside a page (``23.md``: "Deprecated: `kind:30024` was used for
  long-form drafts … use [NIP-37](37.md) instead"; ``24.md``'s deprecated fields). 15 current-vs-replaced pairs in
  22 phrasings (``nips.pairs.jsonl``), 13 marked (20 phrasings; two of them a part of the older page replaced).
- ``fips``: every ``**/*.md`` of filecoin-project/FIPs at dd5075fe0976 (2026-08-05) — Filecoin's improvement
  proposals, 125 pages, 2.0 MB: 97 FIPs (``FIPS/``), 17 Filecoin Requests for Comment (``FRCs/``, numbered in the
  same sequence), the README's status table, the process pages and template, two governance charters and five
  supporting notes. YAML front matter on every proposal (``fip``, ``title``, ``status``, ``type``, ``created``,
  ``replaces``, ``superseded-by``; keys in other cases, template keys left in, five impossible dates). Lifecycle
  in front matter and prose: ``superseded-by: "0015"``, ``status: Superseded by FIP-0067``, "This proposal builds
  on and supersedes [FIP-0090](…)", ``replaces: "FIP-OO35"`` (letters O) beside "a simpler replacement for
  FIP-0035" on its 108th line, methods "superseded by the more flexible `ProveReplicaUpdates3`". 14
  current-vs-replaced pairs in 18 phrasings (``fips.pairs.jsonl``), 11 marked (15 phrasings).
- ``bazelprop``: every ``**/*.md`` of bazelbuild/proposals at f6f439964ad9 (2026-04-22) — Bazel's design
  proposals, 50 pages, 0.46 MB: 47 dated proposals (``designs/YYYY-MM-DD-slug.md``), the template, the README
  (an index of every design document in status tables, most of them Google Docs) and CONTRIBUTING. YAML front
  matter (``created``, ``status``, ``reviewers``, ``title``, ``authors``) that YAML rejects in three (``-
  @gregestren``, a title opening with a backtick, ``status: [Implemented](…)``); the README's states newer than
  the front matter's for 17 pages. Lifecycle: "**NOTE: OBSOLETE** See the new migration plan in [Toolchain
  Transition Migration](…)", "A [previous proposal was submitted](…) … This proposal instead suggests", "This
  proposal has been dropped". 6 current-vs-replaced pairs in 9 phrasings (``bazelprop.pairs.jsonl``), 4 marked (6
  phrasings).
- ``vuerfcs``: every ``**/*.md`` of vuejs/rfcs at 2c62d12d0b8d (2023-10-13) but ``.github/`` — Vue's RFCs, 45 pages,
  0.30 MB: the README, the template and 43 RFCs in ``active-rfcs/`` (Vue 3's core changes and migrations, Vue
  Router, Test Utils). No front matter and no state: a bullet header of start date, target version, issues and
  PR. Replacements said in prose only ("`reactive` is the equivalent of the current `Vue.observable()` API",
  "This outdates https://github.com/vuejs/rfcs/pull/37"), most predecessors by a pull request not in the tree.
  8 current-vs-replaced pairs in 10 phrasings (``vuerfcs.pairs.jsonl``), 3 marked (4 phrasings).
- ``aips``: every ``**/*.md`` of aptos-foundation/AIPs at d93009a55980 (2026-08-19) but ``.github/`` — Aptos's
  improvement proposals, 148 pages, 1.6 MB: the README, the template and 146 AIPs (``aips/aip-NNN-slug.md``:
  consensus, gas, Move, the framework's objects and assets, accounts and keyless sign-in, staking, governance).
  YAML front matter (``aip``, ``title``, ``Status``, ``created``, ``requires``; one block in a ```` ```yaml ````
  fence; dates as ``01/09/2026``); states Accepted, Draft, In Review, Rejected and Final only. Replacements said in
  the later record's prose ("Safe burn was originally described in AIP-45 … This AIP seeks to disable safe object
  burn", "builds on the recent reduction to 5.19% that was proposed in AIP-119"). 14 current-vs-replaced pairs in
  17 phrasings (``aips.pairs.jsonl``), 7 marked (9 phrasings).
- ``pnpmdocs``: every ``**/*.md`` and ``*.mdx`` of pnpm/pnpm.io's ``docs/`` at 4096ad35b19c (2026-08-18), not
  its versioned, translated or blog folders — pnpm's documentation, 144 pages, 0.48 MB: 43 guides, 83 command pages
  (``cli/``), 9 settings pages and 9 MDX partials (``settings/_*.mdx``, imported by other pages). Front matter
  ``id`` and ``title``; Docusaurus admonitions, titled code blocks. Lifecycle in admonitions and prose: ":::warning
  Deprecated" over "`pnpm env` is deprecated. Use [`pnpm runtime`](./runtime.md) instead", "Removed in v11.0.0",
  settings "deprecated since v11.23.0". 3 current-vs-replaced pairs in 6 phrasings (``pnpmdocs.pairs.jsonl``), all
  marked, one of them a whole page replaced.
- ``eslintdocs``: every ``**/*.md`` of eslint/eslint's ``docs/src`` at c27bc926e496 (2026-08-21) — ESLint's
  documentation, 408 pages, 1.9 MB: 312 rule pages (20 of them removed rules), using, configuring and migrating,
  extending, integrating, contributing and maintaining, the site's component demos and page templates. Front
  matter ``title``, ``eleventyNavigation``, ``rule_type``, ``related_rules``; markdown-it containers (``::: correct``,
  ``::: important``) and Nunjucks in 33 pages. Lifecycle: removed rules say "This rule was removed in ESLint v1.0.0
  and replaced by the [strict](strict) rule." in an ``::: important`` container; the 93 rules deprecated in place
  say nothing in their Markdown (their state lives in the rules' JavaScript). 28 current-vs-replaced pairs in 32
  phrasings (``eslintdocs.pairs.jsonl``), 19 marked (21 phrasings).
- ``jeps``: every ``**/*.md`` of jupyter/enhancement-proposals at adc5b88d17f8 (2026-02-05) — Jupyter's
  enhancement proposals, 34 pages, 0.47 MB: the process and its guidelines, 28 proposals (one folder each: the
  kernel protocol, the debugger, schemas, Notebook 7, subshells…), the README index and the ``.github``
  templates. Front matter ``title``, ``authors``, ``issue-number``, ``pr-number``, ``date-started``; a few state
  their outcome in prose. 6 current-vs-replaced pairs in 10 phrasings (``jeps.pairs.jsonl``), 3 marked (5 phrasings).
- ``nixrfcs``: every ``**/*.md`` of NixOS/rfcs at c655bdaab40f (2025-05-26) — NixOS's accepted RFCs, 46 pages,
  0.55 MB: the README, the template and 44 RFCs (process, governance, release, Nixpkgs policy, Nix internals).
  Front matter ``feature``, ``start-date``, ``author``, ``shepherd-team``, ``related-issues``; supersession in a
  notice ("Superseded by RFC 44") or in the later RFC's text. 7 pairs in 11 phrasings (``nixrfcs.pairs.jsonl``),
  4 marked (8 phrasings).
- ``ceps``: every ``**/*.md`` of conda/ceps at c6ae4d9dc885 (2026-08-21) — conda's enhancement proposals, 49 pages,
  0.59 MB: process, plugins, repodata, environments and lock files, package formats, the recipe format. No front
  matter: each opens with an HTML ``<table>`` whose rows give Title, Status, Author(s), Created. 7 pairs in 9
  phrasings (``ceps.pairs.jsonl``), 3 marked (5 phrasings).
- ``dapr``: every ``**/*.md`` of dapr/docs's ``daprdocs/content/en`` at 0748da594aae (2024-10-22) under
  ``dapr/``, and of dapr/proposals at 9ca89581009e (2026-03-25) under ``dapr-proposals/`` — Dapr's Hugo site,
  454 pages, 4.1 MB (concepts, the building blocks, operations, the API, CLI and component reference, SDK and
  developer pages) with front matter ``type``, ``title``, ``linkTitle``, ``weight``, ``description`` and
  Docsy shortcodes (``{{% alert %}}``, ``{{< tabs >}}``), and 29 design proposals, 0.40 MB. Lifecycle mostly
  inside a page (a field, flag or API version deprecated); 6 pairs in 13 phrasings (``dapr.pairs.jsonl``), 4
  marked.
- ``caddy``: every ``**/*.md`` of caddyserver/website's ``src/docs`` at 1a6bbd7d92ea (2026-07-01) — Caddy's
  documentation, 81 pages, 0.85 MB under ``markdown/``: the Caddyfile and its 39 directives' pages, the JSON
  config, the API, automatic HTTPS, the command line, quick-starts, extending Caddy. No front matter; four pages
  are shells a script fills. 7 pairs in 11 phrasings (``caddy.pairs.jsonl``), 5 marked (8 phrasings) — each a
  piece of advice in an otherwise current page replaced by another page's.
- ``gateway``: every ``**/*.md`` of kubernetes-sigs/gateway-api's ``site/content/en`` at 4564255ac2c3
  (2026-08-21) under ``gateway/`` (78 pages: guides, concepts, the API reference, contributing) and of its
  ``geps/`` under ``geps/`` (62 pages: 58 Gateway Enhancement Proposals, each an ``index.md`` opening with "*
  Issue: …" and "* Status: Standard" bullets; their ``metadata.yaml`` not copied) — 140 pages, 2.3 MB. 8 pairs
  in 15 phrasings (``gateway.pairs.jsonl``), 7 marked (14 phrasings).
- ``traefik``: every ``**/*.md`` of traefik/traefik's ``docs/content`` at fd5a576df2e8 (2026-07-24) — Traefik
  Proxy's MkDocs documentation, 171 pages (two empty), 2.5 MB: setup, routing, providers, HTTPS, observability,
  the install and routing reference, migration guides. 9 pairs in 15 phrasings (``traefik.pairs.jsonl``), 4
  marked (7 phrasings), most of them an option moved to another page between major versions.
- ``astroroadmap``: every ``**/*.md`` of withastro/roadmap at 56a8461354f9 (2026-02-10), not ``.github`` — Astro's
  RFCs, 62 proposals (some under a "Legacy RFC" banner; "Start Date", "Reference Issues" bullets, no state), the
  README describing its stages and four templates — 67 pages. 10 pairs in 20 phrasings
  (``astroroadmap.pairs.jsonl``), 8 marked (17 phrasings): "This RFC is intended to supercede RFC0008", a
  "successor to content collections".
- ``argowf``: every ``**/*.md`` of argoproj/argo-workflows' ``docs/`` at f016ad89eb26 (2026-08-21) — Argo
  Workflows' MkDocs documentation, 216 pages (74 generated CLI pages): the walk-through, templates, artifacts,
  executors, configuration, security, scaling, metrics, upgrading. 6 pairs in 10 phrasings
  (``argowf.pairs.jsonl``), 4 marked (7 phrasings), each a section or example of an older page overtaken.
- ``babel``: every ``**/*.md`` and ``*.mdx`` of babel/website's ``docs/`` at b4753209310b (2026-07-17) — Babel's
  documentation, 249 pages in one folder: configuration, the CLI and the API packages, presets, about 150
  plugin pages (many "included in @babel/preset-env", "proposal" plugins renamed "transform", syntax plugins
  that say "instead, use …"), the v7 and v8 migration guides. 19 pairs in 25 phrasings (``babel.pairs.jsonl``), 16
  marked (20 phrasings).
- ``dockercli``: every ``**/*.md`` of docker/cli's ``docs/`` at 28f756087eea (2026-08-20) — the Docker CLI's
  reference, 197 pages: every command and subcommand, ``dockerd``, the plugin pages under ``extend/``, and
  ``deprecated.md`` naming each deprecated feature's replacement. 14 pairs in 25 phrasings
  (``dockercli.pairs.jsonl``), all marked, 13 of them a command's page against ``deprecated.md``.

- ``crossplane``: every ``**/*.md`` of crossplane/crossplane's ``design/`` at 2d040d2daf4e (2026-08-07) — 78
  design documents and one-pagers with a ``* Status:`` line each, 25 of them in ``defunct/`` (retired
  designs), and the folder's README. 98 intents; 23 current-vs-replaced pairs in 47 phrasings
  (``crossplane.pairs.jsonl``, 33 marked).
- ``oteps``: every ``**/*.md`` of open-telemetry/oteps' ``text/`` at 67dc8ec420cf (2024-11-26) — 68
  OpenTelemetry enhancement proposals (metrics, trace, logs, profiles, entities), each opening with a
  banner saying the proposals moved to the specification repository. 78 intents; 15 pairs in 33
  phrasings (28 marked).
- ``deno``: every ``**/*.md`` and ``*.mdx`` of denoland/docs at eb8f78e90dbc (2026-08-18) — Deno's manual,
  460 pages: the runtime, 124 lint rules, examples, Deploy with its "Classic" pages under a sunset
  banner, KV, subhosting (v1 pages under a sunset banner), sandbox and the style guide. 148 intents;
  about 33 pairs in 42 phrasings (37 marked).
- ``ciliumcfps``: every ``**/*.md`` of cilium/design-cfps at 7975d7a5741c (2026-07-20) — 37 Cilium feature
  proposals with their state in a header, the process READMEs and the template. 63 intents; 2 pairs in
  5 phrasings (3 marked).
- ``reactrouter``: every ``**/*.md`` of remix-run/react-router's ``docs/`` (202 pages: API reference, how-tos,
  explanations, tutorials, upgrade guides) and ``decisions/`` (20 decision records, copied to
  ``react-router-decisions``) at cab1a69054aa (2026-08-21). 188 intents; 9 pairs in 19 phrasings (16
  marked).
- ``eeps``: every ``**/*.md`` of erlang/eep's ``eeps/`` at a59b36bb42ae (2026-01-21) — 79 Erlang Enhancement
  Proposals, each with a header of fields (Status, Type, Created; "Replaced-By", "Replaces"). 83 intents;
  13 pairs in 24 phrasings (14 marked).
- ``ghcprop``: every ``**/*.rst`` of ghc-proposals/ghc-proposals' ``proposals/`` at 667c883317a7 (2026-06-30) —
  119 GHC proposals in reStructuredText, the template and process, and 51 stubs saying "This document was
  moved to …". 121 intents; 9 pairs in 15 phrasings (12 marked).
- ``dartlang``: every ``**/*.md`` of dart-lang/language at 635df9ba8b6a (2026-08-21) but ``.github`` — 212
  documents: accepted feature specifications by release, working proposals (many now stubs saying the
  feature "has moved"), ``inactive/`` and ``archive/`` proposals, resources and process. 130 intents; 54
  pairs in 71 phrasings (63 marked).
- ``sveltekit``: every ``**/*.md`` of sveltejs/kit's ``documentation/docs/`` at aa810a04146b (2026-08-08) —
  SvelteKit's documentation, 84 pages, with legacy module pages naming their replacements. 143 intents;
  11 pairs in 21 phrasings (17 marked).
- ``capi``: every ``**/*.md`` of kubernetes-sigs/cluster-api's ``docs/book/src/`` (127 pages, copied to
  ``cluster-api-book``) and ``docs/proposals/`` (42 design proposals with a status in their header, to
  ``cluster-api-proposals``) at ae7ff047db49 (2026-08-21). 179 intents; 5 pairs in 12 phrasings (8 marked).
- ``vitest``: every ``**/*.md`` of vitest-dev/vitest's ``docs/`` but ``blog/`` at c3ba16b35847 (2026-08-22) —
  220 pages: one per configuration option (109), guides, API reference. 142 intents; 4 pairs in 6
  phrasings (2 marked).
- ``webpack``: every ``**/*.mdx`` of webpack/webpack.js.org's ``src/content/`` but ``blog/`` at 9c0ce6f5e982
  (2026-07-23) — 135 pages: concepts, configuration, guides, API, plugins, migration guides. 142
  intents; 13 pairs in 26 phrasings (20 marked).
- ``cdkrfcs``: every ``**/*.md`` of aws/aws-cdk-rfcs' ``text/`` at 71ef61ccec7c (2026-08-06) — 74 design
  proposals for the AWS CDK, its CLI and its libraries. 100 intents; 10 pairs in 15 phrasings (8 marked).
- ``swiftbook``: every ``**/*.md`` of swiftlang/swift-book's ``TSPL.docc/`` at 29329996c4ec (2026-07-14) — *The
  Swift Programming Language* in DocC Markdown, 43 long chapters (the tour, the language guide, the
  reference manual). 191 intents; no page replaces another.
- ``nuxt``: every ``**/*.md`` of nuxt/nuxt's ``docs/`` at 4e0099839c3e (2026-08-22) — Nuxt's documentation, 262
  pages: guides, directory structure, API (composables, components, utils, kit, configuration), Bridge
  and migration pages, one page per error. 192 intents; 9 pairs in 14 phrasings (9 marked).
- ``hono``: every ``**/*.md`` of honojs/website's ``docs/`` (85 pages, to ``hono``) and ``examples/`` (27, to
  ``hono-examples``) at 3048a3680d48 (2026-07-23) — the Hono web framework: one page per runtime, API,
  built-in middleware, helpers. 160 intents; 5 pairs in 10 phrasings (all marked).
- ``starlight``: every ``**/*.md`` and ``*.mdx`` of withastro/starlight's ``docs/src/content/docs/`` at
  3999be7cc18b (2026-08-22) — 37 English pages and their translations into eleven languages, 338 in all;
  only the English pages are judged. 104 intents; no page replaces another.
- ``rustup``: every ``**/*.md`` of rust-lang/rustup's ``doc/`` at 0878429a3d08 (2026-07-24) — the rustup book,
  user guide and developer guide, 32 pages. 74 intents; no page replaces another.
- ``nearneps``: every ``**/*.md`` of near/NEPs' ``neps/`` at dcc0bcbd452f (2026-08-18) — NEAR Protocol's
  enhancement proposals, 63 pages with their header blocks (Status, Replaces, SupersededBy), eight old ones
  under ``archive/``. 73 intents; 7 pairs in 14 phrasings (5 pairs marked).
- ``polkadot``: every ``**/*.md`` of polkadot-fellows/RFCs' ``text/`` at 6e227ae44e82 (2026-03-03) — the
  Polkadot Fellowship's 43 long RFCs. 53 intents; 3 pairs in 6 phrasings (all marked).
- ``cometbft``: every ``**/*.md`` of cometbft/cometbft's ``docs/`` (177 pages, to ``cometbft-docs``: guides,
  decision records with their Status lines, RFCs, QA reports) and ``spec/`` (107, to ``cometbft-spec``,
  a ``legacy/`` folder among them) at 5bba72c14f2b (2026-08-04). 102 intents; 35 pairs in 42 phrasings (25 pairs marked).
- ``typescript``: every ``**/*.md`` of microsoft/TypeScript-Website's ``packages/documentation/copy/en/``
  (128 pages, to ``typescript-docs``: both handbooks, the reference, declaration files, release notes)
  and ``packages/tsconfig-reference/copy/en/`` (163, to ``tsconfig-reference``: one page per compiler
  option) at 1f8e642574ce (2024-10-17). 121 intents; 17 pairs in 33 phrasings (all marked).
- ``solid``: every ``**/*.mdx`` of solidjs/solid-docs' ``src/routes/`` at 12dcb647014b (2026-08-20) —
  SolidJS, Solid Router, SolidStart (v1 and v2 side by side) and Solid Meta, 271 pages in folders named
  with their order ("(0)concepts"). 178 intents; 17 pairs in 24 phrasings (14 pairs marked).
- ``biome``: every ``**/*.md`` and ``*.mdx`` of biomejs/website's ``src/content/docs/`` at 830c2a8d641c
  (2026-08-22), less its eight translations — Biome's guides, reference, blog and one page per lint rule,
  684 pages. 141 intents; 14 pairs in 18 phrasings (4 marked).
- ``jekyll``: every ``**/*.md`` of jekyll/jekyll's ``docs/`` at 202df571314b (2026-04-22) — Jekyll's manual
  (``_docs``), tutorials, release posts and pages, 111 in all, each with its ``permalink``. 139 intents; 10
  pairs in 14 phrasings (4 pairs marked).
- ``homebrew``: every ``**/*.md`` of Homebrew/brew's ``docs/`` at aad366ffaf6a (2026-08-22) — Homebrew's user,
  contributor and maintainer guides and its governance records, 85 pages. 119 intents; 6 pairs in 9 phrasings (1 marked).
- ``rbe``: every ``**/*.md`` of rust-lang/rust-by-example's ``src/`` at 898f0ac14792 (2026-04-19) — *Rust by
  Example*, 198 short chapters (to ``rust-by-example``). 188 intents; no page replaces another.
- ``elixir``: every ``**/*.md`` of elixir-lang/elixir's ``lib/elixir/pages/`` at 63a7a054ceb2 (2026-08-22) —
  the guides shipped with the language, 51 long pages. 82 intents; 5 pairs in 8 phrasings (all marked).
- ``express``: every ``**/*.md`` and ``*.mdx`` of expressjs/expressjs.com's ``src/content/`` at b9d510698d15
  (2026-08-08), less its nine translations — the guide for Express 4.x and 5.x side by side, the API
  reference for 3.x to 5.x, resources and blog posts, 99 pages. 112 intents; 19 pairs in 39 phrasings (9 pairs
  marked).
- ``tokio``: every ``**/*.md`` of tokio-rs/website's ``content/`` at 0b994549a4ca (2026-03-12) — Tokio's
  tutorial and topic guides and 43 blog posts announcing releases (axum's among them), 62 pages. 95 intents;
  21 pairs in 34 phrasings (13 pairs marked).
- ``nomicon``: every ``**/*.md`` of rust-lang/nomicon's ``src/`` at cc6a6bae8c3b (2026-02-27) — *The
  Rustonomicon*, 64 chapters with a Vec and an Arc built step by step. 86 intents; 3 pairs in 5 phrasings (all marked).
- ``trpc``: every ``**/*.md`` and ``*.mdx`` of trpc/trpc's ``www/`` at 340811ba5320 (2026-06-20) — tRPC's docs,
  its 10.x and 9.x docs kept beside them (``versioned_docs/``), blog posts, 212 pages. 106 intents; 61
  pairs in 68 phrasings (3 pairs marked: the versions replace each other by their folders only).
- ``fluentd``: every ``**/*.md`` of fluent/fluentd-docs-gitbook at a7a42eb19ad2 (2024-10-22) — Fluentd's
  GitBook: installation (td-agent v3 and v4 beside fluent-package v5), configuration, one page per plugin,
  plugin development, 193 pages. 149 intents; 9 pairs in 18 phrasings (all marked).
- ``jest``: every ``**/*.md`` and ``*.mdx`` of jestjs/jest's ``docs/`` (38 pages, to ``jest-docs``: the next
  version's), ``website/versioned_docs/`` (115, to ``jest-versioned-docs``: versions 29.7, 30.0 and 30.4,
  each a copy of the same pages) and ``website/blog/`` (22) at 52db46e50404 (2026-08-21). 176 intents; 21
  pairs in 32 phrasings (13 pairs marked).
- ``prettier``: every ``**/*.md`` of prettier/prettier's ``docs/`` (24 pages, to ``prettier-docs``: the next
  version's), ``website/versioned_docs/`` (24, to ``prettier-versioned-docs``: the stable version's copy)
  and ``website/blog/`` (44 release posts) at 4f84a9342013 (2026-07-24). 100 intents; 21 pairs in 27
  phrasings (18 pairs marked).
- ``rtk``: every ``**/*.md`` and ``*.mdx`` of reduxjs/redux-toolkit's ``docs/`` at 74200d87c27c (2026-08-09) —
  Redux Toolkit's tutorials, usage guides and API reference with RTK Query's, 69 pages (to
  ``redux-toolkit``). 109 intents; 5 pairs in 9 phrasings (1 pair marked).
- ``pnpm``: every ``**/*.md`` and ``*.mdx`` of pnpm/pnpm.io's ``docs/`` (144 pages, to ``pnpm-docs``: the next
  version's — the same folder as ``pnpmdocs``), ``versioned_docs/`` (97, to ``pnpm-versioned-docs``: 10.x),
  ``versioned_docs_archived/`` (151, to ``pnpm-versioned-docs-archived``: 9.x and 8.x, the older versions left
  out) and ``blog/`` (42, posts and release notes) at 4096ad35b19c (2026-08-18). 73 intents; 29 pairs in 43
  phrasings (18 pairs marked).
- ``sequelize``: every ``**/*.md`` and ``*.mdx`` of sequelize/website's ``docs/`` (63 pages, to
  ``sequelize-docs``: v7, rewritten) and ``versioned_docs/`` (42, to ``sequelize-versioned-docs``: v6) at
  678e2ada0f48 (2026-04-10) — a site whose versions were rewritten more than copied. 111 intents; 13 pairs in
  22 phrasings (8 pairs marked).
- ``mikroorm``: every ``**/*.md`` and ``*.mdx`` of mikro-orm/mikro-orm's ``docs/docs/`` (83 pages, to
  ``mikroorm-docs``: the next version's), ``docs/versioned_docs/`` (229, to ``mikroorm-versioned-docs``: 7.1, 7.0
  and 6.6, 5.9 left out) and ``docs/blog/`` (15) at a6b973058 (2026-08-21). 67 intents; 18 pairs in 21
  phrasings (10 pairs marked).
Each page is copied to ``02_knowledge/<name>/<its path under the docs folder>``: front matter, body
and links as the site writes them. Nothing is added or rewritten: the tree a user gets by
copying the docs folder in (less any folder of generated pages named with ``--exclude``).

The intents and judgements for each tree (``bench/suite/<name>.intents.jsonl``) were written
from the documents before any system ran on them, and no default was chosen on them.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path


def build(
    src: Path,
    name: str,
    dest: Path,
    docs: str = "docs",
    suffixes: tuple[str, ...] = (".md", ".mdx"),
    exclude: tuple[str, ...] = (),
) -> int:
    if dest.exists():
        shutil.rmtree(dest)
    root = src / docs
    n = 0
    for path in sorted(p for p in root.rglob("*") if p.suffix in suffixes and p.is_file()):
        if any(path.relative_to(root).is_relative_to(x) for x in exclude):
            continue
        out = dest / "02_knowledge" / name / path.relative_to(root)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, out)
        n += 1
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src", type=Path, help="a checkout holding the docs folder")
    ap.add_argument("--docs", default="docs", help="the docs folder under the checkout (docs, content/en)")
    ap.add_argument("--name", required=True, help="the folder under 02_knowledge/ (redux, fastify)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--suffixes", default=".md,.mdx", help="the pages' suffixes (.md,.mdx; a Sphinx site: .rst)")
    ap.add_argument("--exclude", default="", help="folders under the docs folder left out, comma-separated (user-guide/commands)")
    args = ap.parse_args()
    suffixes = tuple(s.strip() for s in args.suffixes.split(",") if s.strip())
    exclude = tuple(x.strip().strip("/") for x in args.exclude.split(",") if x.strip())
    print(f"wrote {build(args.src, args.name, args.out, args.docs, suffixes, exclude)} documents to {args.out}")


if __name__ == "__main__":
    main()
