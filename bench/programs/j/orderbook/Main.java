package orderbook;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/** Best bid and best ask of the book, in ticks; immutable so both sides are always seen together. */
final class TopOfBook {
    final long bestBid;
    final long bestAsk;

    TopOfBook(long bestBid, long bestAsk) {
        this.bestBid = bestBid;
        this.bestAsk = bestAsk;
    }

    boolean crossed() { return bestBid >= bestAsk; }

    long spread() { return bestAsk - bestBid; }
}

/**
 * The top of a matching engine's book. The market maker replaces both sides at once, and a
 * taker lifts the offer with a compare-and-set on the whole pair, so no reader can ever see a
 * bid from one quote paired with an ask from another.
 */
class OrderBook {
    static final long HALF_SPREAD = 2;
    private final AtomicReference<TopOfBook> top;

    OrderBook(long mid) {
        top = new AtomicReference<>(new TopOfBook(mid - HALF_SPREAD, mid + HALF_SPREAD));
    }

    /** The market maker re-centres its quote around a new mid price. */
    void requote(long mid) {
        top.set(new TopOfBook(mid - HALF_SPREAD, mid + HALF_SPREAD));
    }

    /** A marketable buy: fills at the best ask if the limit reaches it; the offer steps up a tick. */
    OptionalLong buy(long limitPrice) {
        while (true) {
            TopOfBook current = top.get();
            if (limitPrice < current.bestAsk) {
                return OptionalLong.empty();
            }
            TopOfBook next = new TopOfBook(current.bestBid, current.bestAsk + 1);
            if (top.compareAndSet(current, next)) {
                return OptionalLong.of(current.bestAsk);
            }
        }
    }

    /** The quote a market-data subscriber publishes. */
    TopOfBook snapshot() {
        return top.get();
    }
}

public class Main {
    /** Holds a task until the market opens, so that all participants trade at the same time. */
    private static void awaitOpen(CountDownLatch startGate) {
        try {
            startGate.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public static void main(String[] args) {
        OrderBook book = new OrderBook(1_000);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        AtomicInteger fills = new AtomicInteger();
        AtomicInteger crossedQuotes = new AtomicInteger();
        CountDownLatch startGate = new CountDownLatch(1);
        List<CompletableFuture<?>> tasks = new ArrayList<>();

        // Market maker: swings the mid price up and down by large steps.
        tasks.add(CompletableFuture.runAsync(() -> {
            awaitOpen(startGate);
            for (int i = 0; i < 200_000; i++) {
                book.requote(i % 2 == 0 ? 1_000 : 1_050);
            }
        }, pool));
        // Takers: send buys with limits around the mid.
        for (int t = 0; t < 2; t++) {
            long limit = 1_002 + 20 * t;
            tasks.add(CompletableFuture.runAsync(() -> {
                awaitOpen(startGate);
                for (int i = 0; i < 50_000; i++) {
                    book.buy(limit).ifPresent(price -> fills.incrementAndGet());
                }
            }, pool));
        }
        // Market data: publishes the spread and counts crossed (impossible) quotes.
        tasks.add(CompletableFuture.supplyAsync(() -> {
            awaitOpen(startGate);
            long widest = 0;
            for (int i = 0; i < 200_000; i++) {
                TopOfBook quote = book.snapshot();
                if (quote.crossed()) {
                    crossedQuotes.incrementAndGet();
                }
                widest = Math.max(widest, quote.spread());
            }
            return widest;
        }, pool).thenAccept(widest -> System.out.println("widest spread seen=" + widest)));

        startGate.countDown();
        CompletableFuture.allOf(tasks.toArray(new CompletableFuture<?>[0])).join();
        pool.shutdown();
        try {
            pool.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        System.out.println("fills=" + fills.get() + " crossed quotes=" + crossedQuotes.get()
                + (crossedQuotes.get() == 0 ? " OK" : " TORN QUOTE"));
    }
}
