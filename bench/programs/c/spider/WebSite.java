package spider;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** A deterministic, in-memory web site standing in for the network. Immutable. */
final class WebSite {
    private final String host;
    private final int pages;

    WebSite(String host, int pages) {
        this.host = host;
        this.pages = pages;
    }

    String root() {
        return url(0);
    }

    String url(int page) {
        return "http://" + host + "/page" + page + ".html";
    }

    /** "Downloads" a page and returns the links found on it. */
    Page fetch(String url) {
        int n = Integer.parseInt(url.substring(url.lastIndexOf("page") + 4, url.lastIndexOf('.')));
        List<String> links = new ArrayList<>();
        links.add(url((n * 3 + 1) % pages));
        links.add(url((n * 7 + 2) % pages));
        links.add(url((n + 1) % pages));
        if (n % 5 == 0) {
            links.add("http://elsewhere.example/ad" + n);
        }
        int size = 512 + (n * 37) % 2048;
        return new Page(url, size, Collections.unmodifiableList(links));
    }

    boolean isLocal(String url) {
        return url.startsWith("http://" + host + "/");
    }

    static final class Page {
        final String url;
        final int size;
        final List<String> links;

        Page(String url, int size, List<String> links) {
            this.url = url;
            this.size = size;
            this.links = links;
        }
    }
}
