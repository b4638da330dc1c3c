#!/usr/bin/env bash
# Builds the Gradle plugin jar: javac --release 8 (Java 8 bytecode and Java 8 API, checked by the
# compiler) against a Gradle distribution's API jars, then `jar`. No Gradle run needed.
#
#   gradle-plugin/build.sh            -> gradle-plugin/build/libs/stalecheck-gradle-plugin.jar
#
# GRADLE_HOME: the Gradle installation whose lib/ and lib/plugins/ jars to compile against
# (default: Debian's /usr/share/gradle, `apt-get install gradle`, Gradle 4.4.1). Point it at an
# unpacked Gradle 7/8/9 distribution to check that the sources still compile against that API.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
gradle_home="${GRADLE_HOME:-/usr/share/gradle}"
if [ ! -d "$gradle_home/lib" ]; then
    echo "build.sh: no Gradle installation at $gradle_home (set GRADLE_HOME, or apt-get install gradle)" >&2
    exit 2
fi
cp="$gradle_home/lib/*:$gradle_home/lib/plugins/*"
# Debian's package keeps the third-party jars the API refers to (Groovy for the Closure
# overloads, SLF4J for Logger) in /usr/share/java; a gradle.org distribution has them in lib/.
if ! ls "$gradle_home"/lib/groovy*.jar >/dev/null 2>&1; then
    cp="$cp:/usr/share/java/groovy-all.jar:/usr/share/java/slf4j-api.jar"
fi
out="$here/build"
rm -rf "$out/classes" && mkdir -p "$out/classes" "$out/libs"
javac --release 8 -encoding UTF-8 -Xlint:all -Xlint:-processing -Werror \
    -cp "$cp" -d "$out/classes" $(find "$here/src/main/java" -name '*.java' | sort)
cp -r "$here/src/main/resources/." "$out/classes/"
# The plugin's version, the workspace's: it picks the version of the scanner artifact it resolves.
version="$(sed -n '/^\[workspace.package\]/,/^\[/s/^version *= *"\(.*\)"/\1/p' "$here/../Cargo.toml" | head -n 1)"
printf 'version=%s\n' "$version" >"$out/classes/io/github/stalecheck/gradle/stalecheck-plugin.properties"
jar --create --file "$out/libs/stalecheck-gradle-plugin.jar" -C "$out/classes" .
echo "built $out/libs/stalecheck-gradle-plugin.jar"
