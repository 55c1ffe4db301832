#!/usr/bin/env bash
# The pbem CI step of .github/workflows/pbem.yml (see pbem's docs/git.md):
#   1. `pbem verify` on every game folder games/*/ : signatures, chain, commitments and a
#      deterministic replay of every transition;
#   2. `pbem check` on every order and reply file the push adds (between $BEFORE and
#      $GITHUB_SHA; the whole history when $BEFORE is empty, all zeros or unknown).
# Failures are printed as GitHub annotations (--github). The script runs every check and exits
# with the highest pbem exit code: 1 illegal orders or a state that does not follow, 2 an
# unreadable or malformed file, 3 a broken seal, chain or commitment.
# Locally: BEFORE=origin/main bash .github/pbem-ci.sh
set -uo pipefail
cd "${GITHUB_WORKSPACE:-.}" || exit 2
SHA="${GITHUB_SHA:-HEAD}"
BEFORE="${BEFORE:-}"
status=0
record() { if [ "$1" -gt "$status" ]; then status=$1; fi; }

shopt -s nullglob
games=(games/*/)
if [ ${#games[@]} -eq 0 ]; then
  echo "::warning title=pbem::no game folder games/*/ in the repository"
fi
annotated=$(mktemp)  # the files pbem verify annotated: pbem check does not annotate them again
added=$(mktemp)
trap 'rm -f "${annotated}" "${added}"' EXIT
for game in "${games[@]}"; do
  echo "== pbem verify ${game}"
  out=$(pbem verify --github "${game}") || record $?
  [ -z "${out}" ] || printf '%s\n' "${out}"
  printf '%s\n' "${out}" | sed -n 's/^::error file=\([^,:]*\).*/\1/p' \
    | sed -e 's/%2C/,/g' -e 's/%3A/:/g' -e 's/%0D/\r/g' -e 's/%0A/\n/g' -e 's/%25/%/g' >> "${annotated}"
done

if [ -z "${BEFORE}" ] || [[ "${BEFORE}" =~ ^0+$ ]] || ! git cat-file -e "${BEFORE}^{commit}" 2>/dev/null; then
  echo "== no previous commit to compare with: checking the order and reply files of the whole history"
  BEFORE=$(git hash-object -t tree /dev/null)  # the empty tree
fi
if ! git diff -z --name-only --no-renames --diff-filter=A "${BEFORE}" "${SHA}" -- \
       'games/**/*.orders.toml' 'games/**/*.reply.toml' > "${added}"; then
  echo "::error title=pbem::git diff ${BEFORE} ${SHA} failed: is the history checked out (fetch-depth: 0)?"
  record 2
fi
while IFS= read -r -d '' file; do
  [ -f "${file}" ] || continue
  if grep -qxF -- "${file}" "${annotated}"; then
    echo "== pbem check ${file}: not checked, pbem verify has annotated it"
    continue
  fi
  echo "== pbem check ${file}"
  pbem check --github "$(dirname "${file}")" "${file}" || record $?
done < "${added}"

if [ "${status}" -eq 0 ]; then
  echo "pbem: every game verifies and every new order and reply file is legal"
fi
exit "${status}"
