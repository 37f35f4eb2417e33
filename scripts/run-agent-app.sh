#!/usr/bin/env bash
# The command Relax's managed-agent runtime launches for each rollout session (in its own process group):
# checks the variables Relax must set, then replaces itself with the thin client so SIGTERM reaches it directly.
set -euo pipefail

: "${RELAX_INPUT_JSON:?RELAX_INPUT_JSON must be set by Relax}"
: "${RELAX_OUTPUT_JSON:?RELAX_OUTPUT_JSON must be set by Relax}"
: "${RELAX_SESSION_ID:?RELAX_SESSION_ID must be set by Relax}"
: "${RELAX_SESSION_IO_DIR:?RELAX_SESSION_IO_DIR must be set by Relax}"
: "${RELAX_BASE_URL:?RELAX_BASE_URL must be set by Relax}"
: "${NEMO_GYM_URL:?NEMO_GYM_URL must point to the shared NeMo Gym gateway}"

PROJECT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." &>/dev/null && pwd)"

# `--import tsx` is resolved from the working directory, so the client runs from the project; relative session
# paths are made absolute first so they keep pointing where Relax meant.
case "${RELAX_INPUT_JSON}" in /*) ;; *) RELAX_INPUT_JSON="${PWD}/${RELAX_INPUT_JSON}" ;; esac
case "${RELAX_OUTPUT_JSON}" in /*) ;; *) RELAX_OUTPUT_JSON="${PWD}/${RELAX_OUTPUT_JSON}" ;; esac
export RELAX_INPUT_JSON RELAX_OUTPUT_JSON
cd "${PROJECT_DIR}"

exec node --import tsx "${PROJECT_DIR}/src/gateway/client/main.ts"
