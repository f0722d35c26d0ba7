# lineflow: `make help` lists every target.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

MVN ?= mvn -B -ntp
# Options for `make run`, passed to the local launcher (see README, "The local run").
RUN_ARGS ?=

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
