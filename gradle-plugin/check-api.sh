#!/usr/bin/env bash
# Compiles the Gradle plugin's sources against a current Gradle API from Maven Central
# (`dev.gradleplugins:gradle-api`, the Gradle API jars republished as Maven artifacts), with every
# lint on and warnings as errors (`-Xlint:all` includes `deprecation`; `-Werror`): an API Gradle
# deprecated or removed fails here. The jar that ships is still built by build.sh against the
# oldest supported API (Debian's Gradle 4.4.1).
#
#   gradle-plugin/check-api.sh [VERSION]     (default 8.11.1, the newest published there)
#
# The API (about 190 MB) is fetched with `mvn dependency:copy-dependencies` into
# gradle-plugin/build/gradle-api-VERSION/ (ignored by git) and reused on the next run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version="${1:-8.11.1}"
command -v mvn >/dev/null || { echo "check-api.sh: needs 'mvn' (apt-get install maven)" >&2; exit 2; }
api="$here/build/gradle-api-$version"
if [ ! -f "$api/.complete" ]; then
    rm -rf "$api" && mkdir -p "$api/lib"
    cat >"$api/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.stalecheck</groupId>
  <artifactId>gradle-api-fetch</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>dev.gradleplugins</groupId>
      <artifactId>gradle-api</artifactId>
      <version>$version</version>
    </dependency>
  </dependencies>
</project>
POM
    mvn -B -ntp -q -f "$api/pom.xml" org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies \
        -DincludeScope=compile -DexcludeTypes=pom -DoutputDirectory="$api/lib"
    touch "$api/.complete"
fi
out="$api/classes"
rm -rf "$out" && mkdir -p "$out"
javac --release 8 -encoding UTF-8 -Xlint:all -Xlint:deprecation -Xlint:-processing -Xlint:-options -Werror \
    -cp "$api/lib/*" -d "$out" $(find "$here/src/main/java" -name '*.java' | sort)
echo "compiled against Gradle API $version ($(ls "$api/lib" | tr '\n' ' ')): no warnings"
