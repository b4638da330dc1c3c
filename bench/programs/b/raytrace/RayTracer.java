package raytrace;

/** mtrt-like ray tracer: threads render disjoint rows of a shared image and add to shared statistics. */
public class RayTracer {
    static final int W = 64, H = 64;

    static final class Stats {
        private long rays;
        private long hits;
        synchronized void addRays(long n) { rays += n; }
        synchronized void addHits(long n) { hits += n; }
        synchronized String summary() { return "rays=" + rays + " hits=" + hits; }
    }

    static final class Sphere {
        final double cx, cy, cz, r;
        Sphere(double cx, double cy, double cz, double r) { this.cx = cx; this.cy = cy; this.cz = cz; this.r = r; }

        double intersect(double dx, double dy, double dz) {
            double b = dx * cx + dy * cy + dz * cz;
            double c = cx * cx + cy * cy + cz * cz - r * r;
            double disc = b * b - c;
            return disc < 0 ? -1 : b - Math.sqrt(disc);
        }
    }

    static final class Scene {
        final Sphere[] spheres = {
            new Sphere(0, 0, 5, 1), new Sphere(1.5, 0.5, 6, 1), new Sphere(-1.5, -0.5, 4, 0.7)
        };
    }

    private final Scene scene = new Scene();
    private final int[] image = new int[W * H];
    private final Stats stats = new Stats();

    void renderRows(int from, int step) {
        long rays = 0, hits = 0;
        for (int y = from; y < H; y += step) {
            for (int x = 0; x < W; x++) {
                double dx = (x - W / 2.0) / W, dy = (y - H / 2.0) / H, dz = 1;
                double len = Math.sqrt(dx * dx + dy * dy + dz * dz);
                dx /= len; dy /= len; dz /= len;
                double nearest = Double.MAX_VALUE;
                for (Sphere s : scene.spheres) {
                    double t = s.intersect(dx, dy, dz);
                    if (t > 0 && t < nearest) nearest = t;
                }
                rays++;
                int shade = 0;
                if (nearest < Double.MAX_VALUE) {
                    hits++;
                    shade = (int) Math.max(0, 255 - nearest * 30);
                }
                image[y * W + x] = shade;   // row y belongs to this thread only
            }
            stats.addRays(rays);
            stats.addHits(hits);
            rays = 0;
            hits = 0;
        }
    }

    public static void main(String[] args) throws InterruptedException {
        RayTracer rt = new RayTracer();
        int n = 4;
        Thread[] ts = new Thread[n];
        for (int i = 0; i < n; i++) {
            final int from = i;
            ts[i] = new Thread(() -> rt.renderRows(from, n));
            ts[i].start();
        }
        long sum = 0;
        for (Thread t : ts) t.join();
        for (int v : rt.image) sum += v;
        System.out.println(rt.stats.summary() + " checksum=" + sum);
    }
}
