#!/usr/bin/env bash
# The install step of .github/workflows/pbem.yml (see pbem's docs/git.md, "Pin pbem"): pbem from
# the pinned source in $PBEM_SOURCE, never from a package index by its name alone.
#   PBEM_SOURCE=git+https://HOST/PATH/pbem@COMMIT   a git repository at a commit or tag
#   PBEM_SOURCE=.github/pbem-0.1.0-py3-none-any.whl  a wheel committed beside the workflow
set -euo pipefail
src="${PBEM_SOURCE:-}"
case "$src" in
  "" | *HOST/PATH* | *@COMMIT)
    echo "::error title=pbem install::PBEM_SOURCE is not set: pin pbem in .github/workflows/pbem.yml (a git URL at a commit, or a wheel beside the workflow; pbem's docs/git.md)"
    exit 2 ;;
  git+*@*) python -m pip install "pbem @ $src" ;;
  git+*)
    echo "::error title=pbem install::PBEM_SOURCE $src names no commit or tag: add @COMMIT"
    exit 2 ;;
  *.whl)
    if [ ! -f "$src" ]; then
      echo "::error title=pbem install::PBEM_SOURCE $src: no such wheel in the repository"
      exit 2
    fi
    python -m pip install "./${src#./}" ;;
  *)
    echo "::error title=pbem install::PBEM_SOURCE $src is neither a git+https URL at a commit nor a .whl file"
    exit 2 ;;
esac
pbem --version
