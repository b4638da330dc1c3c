package chatroom;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Users join and leave a room in bursts while header renderers watch the member count. */
public class Main {
    private static final int USERS_PER_CLIENT = 200;

    /** A client connection that joins many users, then has every other one leave. */
    private static Runnable client(ChatRoom room, int clientId, CountDownLatch start) {
        return () -> {
            awaitQuietly(start);
            for (int u = 0; u < USERS_PER_CLIENT; u++) {
                room.join("user-" + (u % 150) + "@" + (clientId % 2));
            }
            for (int u = 0; u < USERS_PER_CLIENT; u += 2) {
                room.leave("user-" + (u % 150) + "@" + (clientId % 2));
            }
        };
    }

    /** Renders the header repeatedly; returns how many renders showed a wrong count. */
    private static int renderHeaders(ChatRoom room, CountDownLatch start) {
        awaitQuietly(start);
        int wrong = 0;
        for (int i = 0; i < 2_000; i++) {
            if (!room.snapshot().consistent()) {
                wrong++;
            }
        }
        return wrong;
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public static void main(String[] args) throws Exception {
        ChatRoom room = new ChatRoom("#general");
        ExecutorService pool = Executors.newFixedThreadPool(6);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> clients = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            clients.add(pool.submit(client(room, c, start)));
        }
        Future<Integer> header = pool.submit(() -> renderHeaders(room, start));
        start.countDown();
        for (Future<?> f : clients) {
            f.get();
        }
        int wrongRenders = header.get();
        pool.shutdown();
        pool.awaitTermination(5, TimeUnit.SECONDS);
        RoomSnapshot end = room.snapshot();
        boolean ok = end.consistent() && wrongRenders == 0;
        System.out.println(room.name() + " members=" + end.members.size() + " count=" + end.memberCount
                + " wrong renders=" + wrongRenders + (ok ? " OK" : " COUNT DRIFTED"));
    }
}
