package pingpong;

class Table {
    private boolean pingTurn = true;
    private int rallies;

    synchronized void hit(boolean ping) throws InterruptedException {
        while (pingTurn != ping) wait();
        rallies++;
        pingTurn = !ping;
        notifyAll();
    }

    synchronized int getRallies() { return rallies; }
}

class Player extends Thread {
    private final Table table; private final boolean ping; private final int n;
    Player(Table table, boolean ping, int n) { this.table = table; this.ping = ping; this.n = n; }
    @Override public void run() {
        try {
            for (int i = 0; i < n; i++) table.hit(ping);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

public class Main {
    public static void main(String[] args) throws InterruptedException {
        Table t = new Table();
        Player ping = new Player(t, true, 500), pong = new Player(t, false, 500);
        ping.start(); pong.start();
        ping.join(); pong.join();
        System.out.println(t.getRallies() == 1000 ? "OK" : "BUG");
    }
}
