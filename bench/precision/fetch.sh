#!/usr/bin/env bash
# bench/precision/fetch.sh: fetch the precision corpus (each library's jar and sources jar) from
# Maven Central into the local Maven repository with `mvn dependency:get`, without dependencies.
# Idempotent: what is already in the repository is not fetched again.
#
#   bench/precision/fetch.sh            # every library of corpus.txt
#   bench/precision/fetch.sh tomcat h2  # some of them
#
# The local repository is $M2_REPO, else ~/.m2/repository (Maven's default).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=${M2_REPO:-$HOME/.m2/repository}
command -v mvn >/dev/null 2>&1 || { echo "fetch.sh: mvn is missing (apt-get install maven)" >&2; exit 2; }

jar_path() { # groupId:artifactId:version [classifier]
    local g a v c
    IFS=: read -r g a v <<<"$1"
    c=${2:+-$2}
    printf '%s/%s/%s/%s/%s-%s%s.jar\n' "$repo" "${g//.//}" "$a" "$v" "$a" "$v" "$c"
}

status=0
while read -r name coords _; do
    [[ -z $name || $name == \#* ]] && continue
    if (($#)) && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
    for classifier in "" sources; do
        path=$(jar_path "$coords" "$classifier")
        [[ -s $path ]] && continue
        artifact=$coords${classifier:+:jar:$classifier}
        if ! mvn -q -B dependency:get -Dartifact="$artifact" -Dtransitive=false \
            -Dmaven.repo.local="$repo" >/dev/null; then
            echo "fetch.sh: could not fetch $artifact" >&2
            status=1
        fi
    done
    printf '%-14s %s\n' "$name" "$(jar_path "$coords")"
done <"$here/corpus.txt"
exit $status
