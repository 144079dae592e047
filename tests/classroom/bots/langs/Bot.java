// Bot.java -- a course test bot in Java (tests/classroom): plays the first
// entry of `legal` of every your_turn, copied as it is (any game); its
// helper class is in Legal.java (a submission of two files).
import java.io.BufferedReader;
import java.io.InputStreamReader;

public class Bot {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        String line;
        while ((line = in.readLine()) != null) {
            if (!line.contains("\"type\":\"your_turn\""))
                continue;
            System.out.println("{\"type\":\"move\",\"move\":" + Legal.first(line) + "}");
            System.out.flush();
        }
    }
}
