# lineflow: `make help` lists every target.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

MVN ?= mvn -B -ntp
JAVA ?= java
# Options for `make run`, passed to the local launcher (docs/develop.md, "The local run").
RUN_ARGS ?=
# Options for `make drill` (docs/drill.md), e.g. DRILL_ARGS="--faults tm-kill --points 0.5".
DRILL_ARGS ?=
# Options for `make soak` (docs/soak.md), e.g. SOAK_ARGS="--duration 20min --fault-every 2min";
# durations without spaces, as the shell splits the variable at them.
SOAK_ARGS ?=
# What `make soak-smoke` runs: 5 minutes, a fault a minute, the hard ones first.
SOAK_SMOKE_ARGS ?= --duration 5min --fault-every 1min --faults pg-kill,partition-kafka,kafka-kill,tm-kill
# Options for `make migrate`: the job's configuration as `--key value` pairs or `--config FILE`,
# which win over the LINEFLOW_* environment, e.g. MIGRATE_ARGS="--lineflow.jdbc.url jdbc:postgresql://db/lineflow".
MIGRATE_ARGS ?=
# The Flink line `make run`, `make drill` and the soak build and run on (docs/flink-lines.md):
# FLINK_LINE=2.2 builds with -Dflink.line=2.2 and runs from the modules' target/flink-2.2/.
DEFAULT_FLINK_LINE := 1.20
FLINK_LINES := $(DEFAULT_FLINK_LINE) 2.2
FLINK_LINE ?= $(DEFAULT_FLINK_LINE)
ifneq ($(filter-out $(FLINK_LINES),$(FLINK_LINE))$(words $(FLINK_LINE)),1)
$(error FLINK_LINE="$(FLINK_LINE)" is not a Flink line lineflow builds: allowed values are $(FLINK_LINES))
endif
# A line's build folder in a module, as the parent POM's flink.line.target names it: target/ for
# the default line, target/flink-<line>/ for another.
line_target = $(if $(filter $(DEFAULT_FLINK_LINE),$(1)),target,target/flink-$(1))
LINE_TARGET := $(call line_target,$(FLINK_LINE))
# The line the drill's major upgrade goes to: the newest, none from the newest (the POM's
# flink.next.line).
NEXT_FLINK_LINE := $(filter-out $(FLINK_LINE),$(lastword $(FLINK_LINES)))
# What Flink needs opened on JDK 17: the parent POM's lineflow.jdk.opens, as the test kit's build
# for line $(1) writes it (a shell substitution, read when the recipe runs, after its Maven step
# built the kit).
java_opens = $$(sed -n 's/^add-opens=//p' $(CURDIR)/testkit/$(call line_target,$(1))/classes/io/lineflow/testing/jvm.properties)
# Deploy: target overlay (kustomize/overlays/$(ENV)), job image, base image for Jib.
ENV ?= dev
IMAGE ?=
BASE_IMAGE ?= flink:1.20.1-java17
IMAGE_TAR ?= job/target/jib-image.tar
# The shaded job jar of line $(1) under the name the image gives it (job/pom.xml copies it there at
# package), from the repository's root.
job_jar = job/$(call line_target,$(1))/jib-usrlib/lineflow-job.jar
NAMESPACE ?= $(if $(filter prod,$(ENV)),lineflow,lineflow-$(ENV))
# Pinned tools, installed by scripts/tools.sh under ./bin (git-ignored).
BIN ?= $(CURDIR)/bin
KUBECTL ?= $(BIN)/kubectl
HELM ?= $(BIN)/helm
# The operator's version and chart (OPERATOR_CHART_VERSION, …): the one place it is named
# (OperatorVersionTest holds the values, scripts and docs to it).
include operator-config/chart.env
# Chart of `make operator-install`: a folder (OPERATOR_CHART=…); empty means the chart inside the
# operator's source release when it is there (scripts/e2e-images.sh chart), else the Apache repo.
OPERATOR_CHART ?=
# Helm values: the shared file plus the environment's own operator-config/values-$(ENV).yaml, if any.
OPERATOR_VALUES ?= operator-config/values.yaml $(wildcard operator-config/values-$(ENV).yaml)
# Namespaces the operator watches (created before the chart's Roles): watchNamespaces of those values.
OPERATOR_WATCH_NAMESPACES ?= $(if $(filter e2e,$(ENV)),lineflow-e2e,lineflow lineflow-dev)

##@ General

.PHONY: help
# Help texts name the operator's version as $(OPERATOR_CHART_VERSION), filled in from chart.env.
help: ## Show this help.
	@awk -v operator=$(OPERATOR_CHART_VERSION) 'BEGIN {FS = ":.*##"; printf "Usage: make \033[36m<target>\033[0m\n"} /^[a-zA-Z_0-9-]+:.*?##/ { gsub(/\$$\(OPERATOR_CHART_VERSION\)/, operator, $$2); printf "  \033[36m%-18s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) }' $(MAKEFILE_LIST)

##@ Develop

.PHONY: build
build: ## Compile and package every module without running tests.
	$(MVN) -DskipTests package

# The modules built and tested again on Flink 2.2 (docs/flink-lines.md): those that meet Flink.
FLINK_2_2_MODULES := rules,settings,testkit,flink-rest,job,bench,incident-beam,reconciler

.PHONY: test
test: test-tools ## Run every test (unit, integration on real Kafka/PostgreSQL/Flink, promtool on the alert rules, shellcheck over the scripts), then the job, its REST client, the bench and the reconciler's real-REST tests again on Flink 2.2.
	$(MVN) verify
	$(MAKE) test-flink-2.2

.PHONY: test-flink-2.2
test-flink-2.2: ## Build and test the modules that meet Flink on Flink 2.2 (-Dflink.line=2.2, into target/flink-2.2/).
	$(MVN) verify -Dflink.line=2.2 -pl $(FLINK_2_2_MODULES)

.PHONY: test-tools
test-tools: ## Install the Debian packages the tests run besides Java (promtool, shellcheck) when missing; needs root then.
	scripts/test-tools.sh

.PHONY: format
format: ## Format the Java sources (palantir-java-format through spotless); `make test` fails on unformatted code.
	$(MVN) -q spotless:apply

# Generated records for `make fuzz` (`make test` runs the same property with 10,000).
FUZZ_TRIES ?= 1000000

.PHONY: fuzz
fuzz: ## Fuzz the record parser with FUZZ_TRIES generated hostile records (1,000,000, about 2 min) and print the reasons' distribution.
	$(MVN) -q -pl job -am test -Dtest=DeviceEventJsonPropertyTest -Dsurefire.failIfNoSpecifiedTests=false -Dlineflow.fuzz.tries=$(FUZZ_TRIES)

.PHONY: run
run: ## Run the job locally on embedded Kafka and PostgreSQL with a line simulator (RUN_ARGS="--devices 20 --duration 2m"; FLINK_LINE=2.2 on Flink 2.2).
	$(MVN) -q -pl job -am -DskipTests -Dflink.line=$(FLINK_LINE) test-compile dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=$(LINE_TARGET)/run.classpath
	mkdir -p job/$(LINE_TARGET)/local-run-logs
	cd job && exec $(JAVA) $(call java_opens,$(FLINK_LINE)) -Dlog4j2.configurationFile=$(LINE_TARGET)/test-classes/local-run-log4j2.properties \
	  -Dlog.file=$(LINE_TARGET)/local-run-logs/flink.log -cp "$(LINE_TARGET)/test-classes:$(LINE_TARGET)/classes:$$(cat $(LINE_TARGET)/run.classpath)" io.lineflow.local.LocalRun $(RUN_ARGS)

.PHONY: migrate
migrate: ## Apply the schema migrations to LINEFLOW_JDBC_URL (user/password from LINEFLOW_JDBC_USER/_PASSWORD; MIGRATE_ARGS=…).
	$(MVN) -q -pl job -am -DskipTests test-compile dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/run.classpath
	cd job && exec $(JAVA) -cp "target/classes:$$(cat target/run.classpath)" io.lineflow.job.schema.MigrateSchema $(MIGRATE_ARGS)

# Builds the job and the drill; the line follows (-Dflink.line=…).
DRILL_BUILD = $(MVN) -q -pl job,drill -am -DskipTests package
# The drill's JVM, started in drill/: FLINK_LINE's classes, classpath and job jar.
DRILL_JAVA = $(JAVA) -Ddrill.job.jar=../$(call job_jar,$(FLINK_LINE)) \
	  -Ddrill.classpath.file=$(LINE_TARGET)/drill.classpath -Ddrill.classes=$(LINE_TARGET)/classes \
	  -cp "$(LINE_TARGET)/classes:$$(cat $(LINE_TARGET)/drill.classpath)"

.PHONY: drill
drill: ## Run the full restart drill: every fault at three points, plus both negative controls (DRILL_ARGS=...; FLINK_LINE=2.2 on Flink 2.2).
	$(DRILL_BUILD) -Dflink.line=$(FLINK_LINE)
	$(if $(NEXT_FLINK_LINE),$(DRILL_BUILD) -Dflink.line=$(NEXT_FLINK_LINE))
	cd drill && exec $(DRILL_JAVA) $(if $(NEXT_FLINK_LINE),-Ddrill.next-line=$(NEXT_FLINK_LINE) \
	  -Ddrill.next-line.job.jar=../$(call job_jar,$(NEXT_FLINK_LINE)) \
	  -Ddrill.next-line.classpath.file=$(call line_target,$(NEXT_FLINK_LINE))/flink.classpath) \
	  -Ddrill.work=$(LINE_TARGET)/drill io.lineflow.drill.Drill $(DRILL_ARGS)

# The soak's command: the drill's JVM with its own work folder (drill/target/soak, on 2.2
# drill/target/flink-2.2/soak).
SOAK_RUN = cd drill && exec $(DRILL_JAVA) -Ddrill.work=$(LINE_TARGET)/soak io.lineflow.drill.Soak

.PHONY: soak
soak: ## Soak test (root: partitions use iptables): an hour on the local cluster at a steady rate, a fault every 5 min incl. kill -9 of PostgreSQL and the broker and network partitions; exact table, flat heap and checkpoints, recoveries in time (SOAK_ARGS=...; FLINK_LINE=2.2 on Flink 2.2); report drill/target/soak/soak.html (drill/target/flink-2.2/soak/ on 2.2).
	scripts/test-tools.sh iptables:iptables
	$(DRILL_BUILD) -Dflink.line=$(FLINK_LINE)
	$(SOAK_RUN) $(SOAK_ARGS)

.PHONY: soak-smoke
soak-smoke: ## The soak's short version: 5 minutes of input, a fault a minute (SOAK_SMOKE_ARGS; FLINK_LINE=2.2 on Flink 2.2); about 6 min with a warm build (measured, docs/soak.md).
	scripts/test-tools.sh iptables:iptables
	$(DRILL_BUILD) -Dflink.line=$(FLINK_LINE)
	$(SOAK_RUN) $(SOAK_SMOKE_ARGS)

.PHONY: clean
clean: ## Remove build output.
	$(MVN) -q clean

##@ Benchmarks

# Sizes for `make bench` (docs/bench.md), e.g. BENCH_ARGS="--events 500000 --repeats 1".
BENCH_ARGS ?=
# A fixed heap, as Flink starts its TaskManagers (-Xms = -Xmx), of about a production TaskManager's
# (overlays/prod: 4096m process memory, ~1.5 GiB heap); docs/bench.md says why it matters.
BENCH_JAVA_OPTS ?= -Xms2g -Xmx2g
# The reconciler's one-pass measurement runs in its own JVM: it must not share the job's classpath.
BENCH_RECONCILER ?= true
# Rows 8 and 8b: lineflow and Flink SQL on this Flink line (the newest; the bench itself runs on the default), built into its line_target and
# run in a JVM of their own, interleaved with rows 2 and 3 (empty: not built, not run).
BENCH_OTHER_LINE ?= $(lastword $(FLINK_LINES))

.PHONY: bench
bench: ## Throughput vs the Kafka consume limit, Flink SQL and lineflow on the other Flink line (BENCH_OTHER_LINE=2.2), checkpoint, sink and reconciler cost (BENCH_ARGS="--events 500000"); table in bench/target/bench-report.md.
	$(MVN) -q -pl bench -am -DskipTests package
	$(if $(BENCH_OTHER_LINE),$(MVN) -q -pl bench -am -DskipTests -Dflink.line=$(BENCH_OTHER_LINE) package)
	rm -f reconciler/target/scale-report.txt
	@if [ "$(BENCH_RECONCILER)" = true ]; then \
	  $(MVN) -q -pl reconciler -am test -Dtest=ScaleTest -Dsurefire.failIfNoSpecifiedTests=false \
	  || echo "bench: the reconciler measurement failed; row 7 is left out" >&2; fi
	cd bench && exec $(JAVA) $(call java_opens,$(DEFAULT_FLINK_LINE)) $(BENCH_JAVA_OPTS) -Djava.io.tmpdir=target \
	  -Dlog4j2.configurationFile=bench-log4j2.properties -cp "target/classes:$$(cat target/bench.classpath)" \
	  io.lineflow.bench.Bench --reconciler-report ../reconciler/target/scale-report.txt \
	  $(if $(BENCH_OTHER_LINE),--other-line $(call line_target,$(BENCH_OTHER_LINE))) $(BENCH_ARGS)

##@ Deploy

.PHONY: tools
tools: $(KUBECTL) ## Install the pinned kubectl (with kustomize) and helm under ./bin.

$(KUBECTL) $(HELM):
	scripts/tools.sh "$(BIN)"

.PHONY: render
render: tools ## Print the manifests of overlay ENV (IMAGE=… replaces the job image).
	scripts/render.sh "$(ENV)" $(IMAGE)

.PHONY: alert-rules
alert-rules: test-tools ## Check and unit-test the alert rules with promtool; writes them as a plain rules file (deploy/target/alerts) for a Prometheus without the Prometheus Operator.
	$(MVN) -pl deploy -am verify -Dsurefire.failIfNoSpecifiedTests=false -Dtest=AlertRulesTest
	@echo "alert rules: deploy/target/alerts/lineflow-alerts.rules.yml"

.PHONY: validate
validate: lint ## Render every overlay, validate every object against its schema and the image layout, and lint it.
	$(MVN) -pl deploy -am verify -Dtest='io.lineflow.deploy.**' -Dsurefire.failIfNoSpecifiedTests=false

.PHONY: image
image: ## Build the job image with Jib and push it to IMAGE (no Docker needed).
	@test -n "$(IMAGE)" || { echo "set IMAGE=registry/lineflow-job:tag" >&2; exit 2; }
	BASE_IMAGE="$(BASE_IMAGE)" MVN="$(MVN)" scripts/image.sh push "$(IMAGE)"

.PHONY: image-tar
image-tar: ## Build the job image as a tar, offline (IMAGE_TAR=…, BASE_IMAGE=scratch or tar://…).
	BASE_IMAGE="$(BASE_IMAGE)" MVN="$(MVN)" scripts/image.sh tar "$(or $(IMAGE),lineflow-job:dev)" "$(abspath $(IMAGE_TAR))"

.PHONY: operator-install
# Helm installs a chart's crds/ on the first install only and never upgrades them: an operator
# upgrade would run against the old CRDs (1.15.0 on 1.10.0's: it stops at start, as the
# FlinkBlueGreenDeployment CRD is missing, and its DELETING status is refused). So the chart's CRDs
# are server-side applied first, every time, and Helm is told to skip them. Kubernetes 1.20 takes
# both (server-side apply is beta and on there). image.tag follows the chart version installed.
operator-install: tools ## Install or upgrade the Flink Kubernetes Operator $(OPERATOR_CHART_VERSION) (OPERATOR_CHART_VERSION=… for another) with operator-config/values.yaml (+ values-$(ENV).yaml), its CRDs first; chart from the source release if present, else the Apache repo.
	for ns in $(OPERATOR_NAMESPACE) $(OPERATOR_WATCH_NAMESPACES); do \
	  $(KUBECTL) create namespace "$$ns" --dry-run=client -o yaml | $(KUBECTL) apply -f -; done
	chart="$(OPERATOR_CHART)"; [ -n "$$chart" ] || chart="$$(scripts/e2e-images.sh chart $(OPERATOR_CHART_VERSION) 2>/dev/null)" || chart=""; \
	if [ -n "$$chart" ]; then src=("$$chart"); \
	else src=(flink-kubernetes-operator --repo $(OPERATOR_CHART_REPO) --version $(OPERATOR_CHART_VERSION)); fi; \
	echo "operator-install: chart $${src[*]}, values $(OPERATOR_VALUES)"; \
	$(HELM) show crds "$${src[@]}" | $(KUBECTL) apply --server-side --force-conflicts --field-manager=lineflow-operator-install -f -; \
	$(HELM) upgrade --install $(OPERATOR_RELEASE) "$${src[@]}" --skip-crds \
	  --namespace $(OPERATOR_NAMESPACE) $(foreach f,$(OPERATOR_VALUES),-f $(f)) --set image.tag=$(OPERATOR_CHART_VERSION) --wait

.PHONY: deploy
deploy: tools ## Deploy overlay ENV=dev|prod (IMAGE=… sets the job image); dev creates its own secrets.
	$(KUBECTL) create namespace "$(NAMESPACE)" --dry-run=client -o yaml | $(KUBECTL) apply -f -
	@if [ "$(ENV)" = dev ]; then scripts/dev-secrets.sh "$(KUBECTL)" "$(NAMESPACE)"; \
	else $(KUBECTL) -n "$(NAMESPACE)" get secret lineflow-db >/dev/null || { \
	  echo "create Secret lineflow-db (key password) in $(NAMESPACE) first, see docs/deploy.md" >&2; exit 1; }; fi
	# A Job's pod template is immutable: replace the finished migration Job.
	$(KUBECTL) -n "$(NAMESPACE)" delete job lineflow-migrate --ignore-not-found
	scripts/render.sh "$(ENV)" $(IMAGE) | $(KUBECTL) apply -n "$(NAMESPACE)" -f -
	$(KUBECTL) -n "$(NAMESPACE)" wait --for=condition=complete job/lineflow-migrate --timeout=10m

.PHONY: undeploy
undeploy: tools ## Remove overlay ENV (keeps Secrets, PVCs and the checkpoints in storage).
	scripts/render.sh "$(ENV)" | $(KUBECTL) delete -n "$(NAMESPACE)" --ignore-not-found -f -

##@ Reconciler

RECONCILER_JAVA ?= java
RECONCILER_RUN = $(RECONCILER_JAVA) -cp "reconciler/target/classes:$$(cat reconciler/target/classpath.txt)" io.lineflow.reconciler.Main
# Arguments of `make reconciler-check`: --namespace NS [--name NAME], or --rest-url URL [--bootstrap HOST:PORT].
CHECK_ARGS ?= --namespace $(NAMESPACE)
RECONCILER_IMAGE ?=
RECONCILER_BASE_IMAGE ?= eclipse-temurin:17-jre

.PHONY: reconciler-build
reconciler-build: ## Compile the reconciler and write its runtime classpath (used by the targets below).
	$(MVN) -q -pl reconciler -am -DskipTests package dependency:build-classpath -Dmdep.outputFile=target/classpath.txt

.PHONY: reconciler-test
reconciler-test: ## Run the reconciler's tests (pure checks, mock API server, fake Flink REST, lint fixtures).
	$(MVN) -pl reconciler -am verify -Dtest='io.lineflow.reconciler.**' -Dsurefire.failIfNoSpecifiedTests=false

.PHONY: reconciler-check
reconciler-check: reconciler-build ## One health pass against the current kube context (CHECK_ARGS="--namespace ns" or "--rest-url http://localhost:8081"); exit 1 warning, 2 critical.
	$(RECONCILER_RUN) check $(CHECK_ARGS)

.PHONY: lint
lint: reconciler-build tools ## GitOps gate: render every overlay and run the reconciler's spec checks on it.
	for env in $$(ls kustomize/overlays); do echo "== overlay $$env"; scripts/render.sh "$$env" | $(RECONCILER_RUN) lint -; done

.PHONY: reconciler-image
reconciler-image: ## Build and push the reconciler image with Jib, no Docker needed (RECONCILER_IMAGE=registry/lineflow-reconciler:tag).
	@test -n "$(RECONCILER_IMAGE)" || { echo "set RECONCILER_IMAGE=registry/lineflow-reconciler:tag" >&2; exit 2; }
	$(MVN) -pl reconciler -am -DskipTests -Dlineflow.image=reconciler package jib:build -Dreconciler.image="$(RECONCILER_IMAGE)" -Dreconciler.base.image="$(RECONCILER_BASE_IMAGE)"

.PHONY: reconciler-image-tar
reconciler-image-tar: ## Build the reconciler image as reconciler/target/jib-image.tar, offline (RECONCILER_BASE_IMAGE=scratch or tar://…).
	$(MVN) -pl reconciler -am -DskipTests -Dlineflow.image=reconciler package jib:buildTar -Dreconciler.image="$(or $(RECONCILER_IMAGE),lineflow-reconciler:dev)" -Dreconciler.base.image="$(RECONCILER_BASE_IMAGE)"

##@ Real API server

# State (certificates, tokens, kubeconfig, logs) of the server `make k8s-test-env` starts.
K8S_ENV_STATE ?= $(CURDIR)/.cache/k8s-env

.PHONY: k8s-test-env
k8s-test-env: ## Start etcd + kube-apiserver 1.20.2 on loopback with RBAC (the first run builds it, about 25 min on 2 cores; LINEFLOW_K8S_CACHE=dir shares the build).
	scripts/k8s-test-env.sh start "$(K8S_ENV_STATE)"
	@echo "kubectl --kubeconfig $(K8S_ENV_STATE)/kubeconfig get ns   (tests in k8s-it reuse this server)"

.PHONY: k8s-test-env-stop
k8s-test-env-stop: ## Stop the etcd + kube-apiserver that `make k8s-test-env` started (and nothing else).
	scripts/k8s-test-env.sh stop "$(K8S_ENV_STATE)"

.PHONY: k8s-it
k8s-it: ## Run the real-API-server tests only (overlays dry-run, reconciler and Flink RBAC).
	$(MVN) -pl k8s-it -am verify -Dsurefire.failIfNoSpecifiedTests=false -Dtest='io.lineflow.k8s.**'

##@ End to end

# State of the single-node cluster of `make e2e-up` (kubeconfig, env, logs, containerd's images).
E2E_STATE ?= $(CURDIR)/.cache/e2e
# The drill's scenarios (docs/e2e.md): `make e2e` runs E2E_SCENARIOS, `make e2e-drill` all of them.
E2E_SCENARIOS ?= steady
E2E_DRILL_SCENARIOS ?= all
# Extra options of the e2e verifier, e.g. E2E_ARGS="--time-per-window 3s --windows 10".
E2E_ARGS ?=

.PHONY: e2e-up
e2e-up: ## Start a single-node Kubernetes 1.20.2 cluster on this machine (root; bridge lineflow0, containerd, DNS); the first run builds it, about 25 min on 2 cores.
	LINEFLOW_E2E_STATE="$(E2E_STATE)" scripts/e2e-cluster.sh up

.PHONY: e2e-down
e2e-down: ## Stop the e2e cluster; removes its bridge, iptables chains, mounts and cgroups (imported images stay).
	LINEFLOW_E2E_STATE="$(E2E_STATE)" scripts/e2e-cluster.sh down

.PHONY: e2e
e2e: tools ## lineflow on the e2e cluster under the real operator: up, images, operator, deploy, RUNNING, exact table, undeploy (E2E_KEEP=1 keeps it deployed; E2E_SCENARIOS=steady,jm-pod-delete; FLINK_LINE=2.2 on Flink 2.2: overlay e2e-flink-2.2).
	MAKE="$(MAKE)" MVN="$(MVN)" LINEFLOW_E2E_STATE="$(E2E_STATE)" E2E_SCENARIOS="$(E2E_SCENARIOS)" E2E_ARGS="$(E2E_ARGS)" E2E_FLINK_LINE="$(FLINK_LINE)" scripts/e2e.sh

.PHONY: e2e-drill
e2e-drill: tools ## The restart drill through the operator on the e2e cluster: every fault on one deployment, then both negative controls (about an hour; E2E_DRILL_SCENARIOS=… for fewer; FLINK_LINE=2.2 on Flink 2.2: overlay e2e-flink-2.2).
	MAKE="$(MAKE)" MVN="$(MVN)" LINEFLOW_E2E_STATE="$(E2E_STATE)" E2E_SCENARIOS="$(E2E_DRILL_SCENARIOS)" E2E_ARGS="$(E2E_ARGS)" E2E_FLINK_LINE="$(FLINK_LINE)" scripts/e2e.sh

.PHONY: e2e-status
e2e-status: ## Show whether the e2e cluster is up with its node Ready (`scripts/e2e-cluster.sh env` prints its environment).
	LINEFLOW_E2E_STATE="$(E2E_STATE)" scripts/e2e-cluster.sh status

##@ End to end images

.PHONY: e2e-images
e2e-images: ## Build the e2e image tars offline (stand-in Flink 1.20.1 and JRE bases, operator $(OPERATOR_CHART_VERSION), job, reconciler) and import them into the e2e cluster when it is up.
	@sock="$(E2E_STATE)/containerd/containerd.sock"; \
	if [ -S "$$sock" ]; then MVN="$(MVN)" scripts/e2e-images.sh import "$$sock" k8s.io; \
	else MVN="$(MVN)" scripts/e2e-images.sh build; echo "e2e-images: no e2e cluster at $(E2E_STATE), nothing imported"; fi
	@scripts/e2e-images.sh env

.PHONY: operator-build
operator-build: ## Build the Flink Kubernetes Operator $(OPERATOR_CHART_VERSION) jars from its source release (OPERATOR_CHART_VERSION=… for another, LINEFLOW_OPERATOR_SRC=…; cached).
	MVN="$(MVN)" scripts/e2e-images.sh operator-build $(OPERATOR_CHART_VERSION)

.PHONY: operator-image
operator-image: ## Build the operator $(OPERATOR_CHART_VERSION) image tar alone (its jars and the JRE layer; nothing of Flink, the job or the reconciler).
	MVN="$(MVN)" scripts/e2e-images.sh operator-image $(OPERATOR_CHART_VERSION)
