package circuitbreakerbug;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/** A pricing client calls a flaky quote service through a circuit breaker. */
public class Main {
    private static final int THRESHOLD = 100;

    /** The remote quote service; throws while it is down. */
    static final class QuoteService {
        final AtomicBoolean healthy = new AtomicBoolean(false);

        String quote(String symbol) {
            if (!healthy.get()) {
                throw new IllegalStateException("503 from quote service for " + symbol);
            }
            return symbol + "=101.25";
        }
    }

    /** Fires {@code n} quote requests through the breaker; returns how many came back priced. */
    private static long burst(CircuitBreaker breaker, QuoteService service, ExecutorService pool, int n) {
        List<CompletableFuture<Boolean>> calls = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String symbol = "SYM" + i;
            calls.add(breaker.call(() -> service.quote(symbol), pool)
                    .thenApply(quote -> quote.endsWith("101.25"))
                    .exceptionally(error -> false));
        }
        return calls.stream().map(CompletableFuture::join).filter(ok -> ok).count();
    }

    public static void main(String[] args) throws InterruptedException {
        CircuitBreaker breaker = new CircuitBreaker(THRESHOLD, TimeUnit.MILLISECONDS.toNanos(20));
        QuoteService service = new QuoteService();
        ExecutorService pool = Executors.newFixedThreadPool(8);

        long priced = burst(breaker, service, pool, 400);
        BreakerState afterOutage = breaker.state();
        System.out.println("outage: priced=" + priced + " mode=" + afterOutage.mode
                + " failures=" + afterOutage.failures + " rejected=" + breaker.rejected());

        service.healthy.set(true);
        TimeUnit.MILLISECONDS.sleep(25);
        long recovered = burst(breaker, service, pool, 1) + burst(breaker, service, pool, 50);
        pool.shutdown();
        pool.awaitTermination(5, TimeUnit.SECONDS);

        boolean ok = afterOutage.mode == BreakerState.Mode.OPEN && afterOutage.failures == THRESHOLD
                && breaker.state().mode == BreakerState.Mode.CLOSED;
        System.out.println("recovery: priced=" + recovered + " mode=" + breaker.state().mode
                + (ok ? " OK" : " FAILURES LOST"));
    }
}
