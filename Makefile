# The two commands of the README. Both install or start what they need.
.PHONY: run test bench build stop openapi contracts-baseline

## Bring the whole console up with demo data on http://127.0.0.1:8080.
run:
	@bash deploy/run.sh

## Every check: contracts, Rust, Helm, console, browser tests.
test:
	@bash deploy/test.sh

## Benchmarks on a release build, each figure as a ratio to a bare baseline.
bench:
	@bash deploy/bench.sh

## Just the binary.
build:
	cargo build --bin fleetdesk

## Stop the private PostgreSQL/NATS that the scripts started (if any).
stop:
	@bash deploy/stop-private.sh

## Regenerate the console's API types from the gateway's OpenAPI document.
openapi:
	cargo run --quiet --bin fleetdesk -- openapi > apps/console/src/lib/api/openapi.json
	npx openapi-typescript apps/console/src/lib/api/openapi.json -o apps/console/src/lib/api/schema.d.ts

## Take the contracts as they are now as the baseline `buf breaking` checks against
## (a deliberate breaking change: add a line to proto/CHANGELOG.md).
contracts-baseline:
	@bash deploy/ensure-tools.sh buf
	@bash -c 'source deploy/lib.sh && buf build --exclude-source-info -o proto/baseline/fleetdesk.binpb'
