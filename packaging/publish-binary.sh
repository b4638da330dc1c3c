#!/usr/bin/env bash
# Publishes a stalecheck binary as a Maven artifact, the way protoc is published: one artifact of
# type `exe` per platform, told apart by a classifier, with a pom and checksums, deployed to a
# Maven repository directory (a `file://` repository: the layout `mvn deploy` writes, with
# maven-metadata.xml). The Gradle and Maven plugins resolve
#
#     io.github.stalecheck:stalecheck-cli:<version>:<classifier>@exe
#
# for the platform they run on from the build's repositories (the plugin's version picks the
# binary's version).
#
#   packaging/publish-binary.sh --repository DIR [--binary FILE] [--classifier CLASSIFIER]
#                               [--version VERSION] [--strip]
#
#   --repository DIR   the Maven repository directory to deploy to (created if missing; may be a
#                      local repository such as ~/.m2/repository, or a directory you then upload)
#   --binary FILE      the binary (default: target/release/stalecheck[.exe] of this repository)
#   --classifier C     linux-x86_64 | linux-aarch_64 | osx-x86_64 | osx-aarch_64 | windows-x86_64
#                      (default: the platform this script runs on, named as os-maven-plugin does)
#   --version V        default: the workspace version in Cargo.toml (= the plugins' version)
#   --strip            publish a copy without debug information (`strip`; smaller test repositories)
#
# Deploys with `mvn deploy:deploy-file` (pom, .sha1 and .md5, maven-metadata.xml), then adds the
# .sha256 and .sha512 checksums Maven 3.8 does not write. Run it once per platform's binary into
# the same directory; each run adds its classifier beside the others.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo_root="$(cd "$here/.." && pwd)"

GROUP_ID=io.github.stalecheck
ARTIFACT_ID=stalecheck-cli
DEPLOY_PLUGIN=org.apache.maven.plugins:maven-deploy-plugin:3.1.2

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "publish-binary.sh: $*" >&2; exit 2; }

repository="" binary="" classifier="" version="" strip=0
while [ $# -gt 0 ]; do
    case "$1" in
        --repository) repository="${2:-}"; shift 2 ;;
        --binary) binary="${2:-}"; shift 2 ;;
        --classifier) classifier="${2:-}"; shift 2 ;;
        --version) version="${2:-}"; shift 2 ;;
        --strip) strip=1; shift ;;
        -h|--help) usage ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done
[ -n "$repository" ] || die "--repository DIR is required (see --help)"

# The platform, named as os-maven-plugin (and so protoc's artifacts) name it.
detect_classifier() {
    local os arch
    case "$(uname -s)" in
        Linux*) os=linux ;;
        Darwin*) os=osx ;;
        MINGW*|MSYS*|CYGWIN*|Windows_NT) os=windows ;;
        *) die "unknown operating system '$(uname -s)': pass --classifier" ;;
    esac
    case "$(uname -m)" in
        x86_64|amd64|x64) arch=x86_64 ;;
        aarch64|arm64) arch=aarch_64 ;;
        *) die "unknown architecture '$(uname -m)': pass --classifier" ;;
    esac
    echo "$os-$arch"
}
[ -n "$classifier" ] || classifier="$(detect_classifier)"
case "$classifier" in
    linux-x86_64|linux-aarch_64|osx-x86_64|osx-aarch_64|windows-x86_64) ;;
    *) die "unsupported classifier '$classifier' (linux-x86_64, linux-aarch_64, osx-x86_64, osx-aarch_64, windows-x86_64)" ;;
esac

if [ -z "$version" ]; then
    version="$(sed -n '/^\[workspace.package\]/,/^\[/s/^version *= *"\(.*\)"/\1/p' "$repo_root/Cargo.toml" | head -n 1)"
    [ -n "$version" ] || die "cannot read the workspace version from $repo_root/Cargo.toml: pass --version"
fi

if [ -z "$binary" ]; then
    binary="$repo_root/target/release/stalecheck"
    [ -f "$binary" ] || [ ! -f "$binary.exe" ] || binary="$binary.exe"
fi
[ -f "$binary" ] || die "no binary at $binary (cargo build --release -p stalecheck, or pass --binary)"
command -v mvn >/dev/null || die "needs 'mvn' (apt-get install maven)"

mkdir -p "$repository"
repository="$(cd "$repository" && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/stalecheck-publish.XXXXXX")"
trap 'rm -rf "$work"' EXIT
file="$work/stalecheck-$version-$classifier.exe"
cp "$binary" "$file"
if [ "$strip" = 1 ]; then
    command -v strip >/dev/null || die "--strip needs 'strip' (apt-get install binutils)"
    chmod u+w "$file" && strip --strip-debug "$file"
fi

# An empty working directory: deploy-file needs no project, and must not pick up one.
(cd "$work" && mvn -B -ntp -q "$DEPLOY_PLUGIN:deploy-file" \
    -Durl="file://$repository" -DrepositoryId=stalecheck-local \
    -Dfile="$file" -DgroupId="$GROUP_ID" -DartifactId="$ARTIFACT_ID" -Dversion="$version" \
    -Dpackaging=exe -Dclassifier="$classifier" -DgeneratePom=true \
    -DgeneratePom.description="stalecheck $version command-line binary ($classifier)") \
    || die "mvn deploy:deploy-file failed"

# Maven 3.8 writes .sha1 and .md5; add .sha256 and .sha512 (Maven Central accepts and
# newer resolvers check them) for every file of the artifact and its metadata.
artifact_dir="$repository/${GROUP_ID//.//}/$ARTIFACT_ID"
for f in "$artifact_dir"/maven-metadata.xml "$artifact_dir/$version"/*; do
    case "$f" in *.md5|*.sha1|*.sha256|*.sha512|*.asc) continue ;; esac
    [ -f "$f" ] || continue
    sha256sum "$f" | cut -d' ' -f1 | tr -d '\n' >"$f.sha256"
    sha512sum "$f" | cut -d' ' -f1 | tr -d '\n' >"$f.sha512"
done
exe="$artifact_dir/$version/$ARTIFACT_ID-$version-$classifier.exe"
[ -f "$exe" ] || die "deploy-file did not write $exe"
echo "published $GROUP_ID:$ARTIFACT_ID:$version:$classifier@exe to file://$repository"
echo "  $exe"
