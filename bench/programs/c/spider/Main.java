package spider;

public final class Main {
    public static void main(String[] args) throws InterruptedException {
        Spider spider = new Spider(new WebSite("www.example.org", 400), 12, 6);
        spider.crawl();
        System.out.println("discovered " + spider.pagesDiscovered()
                + ", fetched " + spider.pagesFetched()
                + ", bytes " + spider.bytesFetched()
                + ", external links " + spider.externalLinks());
        if (spider.pagesFetched() != spider.pagesDiscovered()) {
            System.out.println("WARNING: some page was fetched more than once");
        }
    }
}
