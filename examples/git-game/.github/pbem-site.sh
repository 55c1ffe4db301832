#!/usr/bin/env bash
# The site step of .github/workflows/pbem.yml (see pbem's docs/git.md): a web site of every game
# folder games/NAME/ into OUT/NAME/ (pbem site), and OUT/index.html listing them. It runs after
# the pbem job verified the push; a folder that does not verify still gets its site, which says
# so, and the step fails.
# Locally: bash .github/pbem-site.sh _site
set -uo pipefail
cd "${GITHUB_WORKSPACE:-.}" || exit 2
OUT="${1:-_site}"
status=0
mkdir -p "${OUT}" || exit 2
shopt -s nullglob
{
  echo '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
  echo '<meta name="viewport" content="width=device-width, initial-scale=1"><title>Games</title></head><body><h1>Games</h1><ul>'
} > "${OUT}/index.html"
for game in games/*/; do
  name=$(basename "${game}")
  case "${name}" in
    *[!A-Za-z0-9._-]*) echo "::warning title=pbem site::games/${name}: a folder name of letters, digits, '.', '_' and '-' only is published"; continue ;;
  esac
  echo "== pbem site ${game}"
  pbem site "${game}" -o "${OUT}/${name}" || { rc=$?; if [ "${rc}" -gt "${status}" ]; then status=${rc}; fi; }
  echo "<li><a href=\"${name}/index.html\">${name}</a></li>" >> "${OUT}/index.html"
done
echo '</ul></body></html>' >> "${OUT}/index.html"
exit "${status}"
