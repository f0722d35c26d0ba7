# lineflow: `make help` lists every target.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

MVN ?= mvn -B -ntp
# Options for `make run`, passed to the local launcher (see README, "The local run").
RUN_ARGS ?=
# Deploy: target overlay (kustomize/overlays/$(ENV)), job image, base image for Jib.
ENV ?= dev
IMAGE ?=
BASE_IMAGE ?= flink:1.20.1-java17
IMAGE_TAR ?= job/target/jib-image.tar
NAMESPACE ?= $(if $(filter prod,$(ENV)),lineflow,lineflow-$(ENV))
# Pinned tools, installed by scripts/tools.sh under ./bin (git-ignored).
BIN ?= $(CURDIR)/bin
KUBECTL ?= $(BIN)/kubectl
HELM ?= $(BIN)/helm
include operator-config/chart.env

##@ General

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"; printf "Usage: make \033[36m<target>\033[0m\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-18s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) }' $(MAKEFILE_LIST)

##@ Develop

.PHONY: build
build: ## Compile and package every module without running tests.
	$(MVN) -DskipTests package

.PHONY: test
test: ## Run every test (unit, integration on real Kafka/PostgreSQL/Flink).
	$(MVN) verify

.PHONY: run
run: ## Run the job locally on embedded Kafka and PostgreSQL with a line simulator (RUN_ARGS="--devices 20 --duration 2m").
	$(MVN) -q -pl job -am -DskipTests install
	$(MVN) -q -pl job exec:exec -Dlineflow.run.args="$(RUN_ARGS)"

.PHONY: clean
clean: ## Remove build output.
	$(MVN) -q clean

##@ Deploy

.PHONY: tools
tools: $(KUBECTL) ## Install the pinned kubectl (with kustomize) and helm under ./bin.

$(KUBECTL) $(HELM):
	scripts/tools.sh "$(BIN)"

.PHONY: render
render: tools ## Print the manifests of overlay ENV (IMAGE=… replaces the job image).
	scripts/render.sh "$(ENV)" $(IMAGE)

.PHONY: validate
validate: ## Render every overlay and validate every object against its schema, plus the image layout.
	$(MVN) -pl deploy verify

.PHONY: image
image: ## Build the job image with Jib and push it to IMAGE (no Docker needed).
	@test -n "$(IMAGE)" || { echo "set IMAGE=registry/lineflow-job:tag" >&2; exit 2; }
	BASE_IMAGE="$(BASE_IMAGE)" MVN="$(MVN)" scripts/image.sh push "$(IMAGE)"

.PHONY: image-tar
image-tar: ## Build the job image as a tar, offline (IMAGE_TAR=…, BASE_IMAGE=scratch or tar://…).
	BASE_IMAGE="$(BASE_IMAGE)" MVN="$(MVN)" scripts/image.sh tar "$(or $(IMAGE),lineflow-job:dev)" "$(abspath $(IMAGE_TAR))"

.PHONY: operator-install
operator-install: tools ## Install or upgrade the Flink Kubernetes Operator (pinned chart) with operator-config/values.yaml.
	for ns in $(OPERATOR_NAMESPACE) lineflow lineflow-dev; do \
	  $(KUBECTL) create namespace "$$ns" --dry-run=client -o yaml | $(KUBECTL) apply -f -; done
	$(HELM) upgrade --install $(OPERATOR_RELEASE) flink-kubernetes-operator \
	  --repo $(OPERATOR_CHART_REPO) --version $(OPERATOR_CHART_VERSION) \
	  --namespace $(OPERATOR_NAMESPACE) -f operator-config/values.yaml --wait

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
