package dev.tracegate.matchers.pii;

import com.google.i18n.phonenumbers.NumberParseException;
import com.google.i18n.phonenumbers.PhoneNumberUtil;
import com.google.i18n.phonenumbers.Phonenumber;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Finds personal data in text with deterministic detectors (no model): e-mail addresses, phone
 * numbers (validated by libphonenumber), IBANs (mod-97 checksum and country length), payment cards
 * (Luhn and issuer ranges), national identifiers (US SSN, UK NINO, Spanish DNI/NIE, Canadian SIN),
 * dates of birth (a date near a birth word), postal addresses (street forms, UK postcodes, US
 * state and ZIP, PO boxes), IPv4/IPv6 addresses, and health and financial terms; and reads field
 * names as hints ({@code email}, {@code dob}, {@code iban}...). Thread-safe: each thread keeps two
 * position arrays that grow to its longest text. Scanning is linear in the text: one pass records
 * where words and marks start, and the detectors visit only those positions; it allocates nothing
 * unless a phone-number candidate reaches libphonenumber or a thread meets a longer text than before.
 * Precision and recall on the committed fixture set are in matchers/README.md.
 */
public final class DataCategoryExtractor {
    /** Characters of one text that are scanned. */
    public static final int MAX_SCAN = 65_536;

    private static final PhoneNumberUtil PHONES = PhoneNumberUtil.getInstance();
    private static final char[][] PHONE_WORDS = words("phone", "tel", "call", "mobile", "cell", "fax", "contact", "ring", "whatsapp", "sms", "text me", "reach me");
    private static final char[][] BIRTH_WORDS = words("born", "birth", "dob", "d.o.b", "birthday", "birthdate", "geboren", "geb.", "née", "né le", "nacido", "nata", "nato");
    private static final char[][] NOT_PHONE_WORDS = words("isbn", "order", "invoice", "sku", "tracking", "ref", "version", "build", "serial");
    private static final char[][] VERSION_WORDS = words("version", "release", "build");
    private static final String[] TRUNK_ZERO_REGIONS = {"GB", "DE", "FR", "NL", "IT", "AU"};
    private static final String[] NANP_REGIONS = {"US"};
    private static final char[][] SSN_WORDS = words("ssn", "social security", "sin", "social insurance");
    private static final String[] MONTHS = {"january", "february", "march", "april", "may", "june", "july", "august",
        "september", "october", "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept",
        "oct", "nov", "dec"};
    private static final char[][] STREET_SUFFIXES = words("street", "st", "avenue", "ave", "road", "rd", "boulevard", "blvd",
        "lane", "ln", "drive", "dr", "court", "ct", "way", "place", "pl", "terrace", "close", "crescent", "square", "sq",
        "parkway", "pkwy", "highway", "hwy", "circle", "cir", "trail", "row", "gardens", "mews", "hill", "grove", "walk");
    private static final char[][] GERMANIC_STREETS = words("straße", "strasse", "str.", "gasse", "allee", "weg", "platz", "laan", "straat", "gracht");
    private static final char[][] ROMANCE_AFTER_NUMBER = words("rue", "avenue", "boulevard", "bd", "allée", "chemin", "impasse", "quai", "place");
    private static final char[][] ROMANCE_BEFORE_NUMBER = words("via", "viale", "piazza", "corso", "calle", "avenida", "plaza", "rua", "carrer", "paseo");
    private static final String US_STATES = "AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC PR";
    private static final String IBAN_LENGTHS = "AD24 AE23 AL28 AT20 AZ28 BA20 BE16 BG22 BH22 BR29 CH21 CR22 CY28 CZ24 DE22 DK18 DO28 EE20 "
            + "ES24 FI18 FO18 FR27 GB22 GE22 GI23 GL18 GR27 GT28 HR21 HU28 IE22 IL23 IS26 IT27 JO30 KW30 KZ20 LB28 LI21 LT20 "
            + "LU20 LV21 MC27 MD24 ME22 MK19 MR27 MT31 MU30 NL18 NO15 PK24 PL28 PS29 PT25 QA29 RO24 RS22 SA24 SE24 SI19 SK24 "
            + "SM27 TN24 TR26 UA29 VG24 XK20";
    /** Terms: phrase, category, and a preceding word that cancels it (or null). */
    private static final Object[][] TERMS = {
        {"diagnosis", DataCategory.HEALTH, null}, {"diagnosed", DataCategory.HEALTH, null},
        {"diabetes", DataCategory.HEALTH, null}, {"diabetic", DataCategory.HEALTH, null},
        {"cancer", DataCategory.HEALTH, null}, {"tumor", DataCategory.HEALTH, null}, {"tumour", DataCategory.HEALTH, null},
        {"hiv", DataCategory.HEALTH, null}, {"asthma", DataCategory.HEALTH, null},
        {"clinical depression", DataCategory.HEALTH, null}, {"depressive", DataCategory.HEALTH, null},
        {"anxiety disorder", DataCategory.HEALTH, null}, {"bipolar", DataCategory.HEALTH, null},
        {"schizophrenia", DataCategory.HEALTH, null}, {"pregnant", DataCategory.HEALTH, null},
        {"pregnancy", DataCategory.HEALTH, null}, {"prescription", DataCategory.HEALTH, null},
        {"prescribed", DataCategory.HEALTH, null}, {"medication", DataCategory.HEALTH, null},
        {"medications", DataCategory.HEALTH, null}, {"chemotherapy", DataCategory.HEALTH, null},
        {"radiotherapy", DataCategory.HEALTH, null}, {"surgery", DataCategory.HEALTH, null},
        {"allergy", DataCategory.HEALTH, null}, {"allergies", DataCategory.HEALTH, null},
        {"allergic", DataCategory.HEALTH, null}, {"hypertension", DataCategory.HEALTH, null},
        {"blood pressure", DataCategory.HEALTH, null}, {"cholesterol", DataCategory.HEALTH, null},
        {"insulin", DataCategory.HEALTH, null}, {"antidepressant", DataCategory.HEALTH, null},
        {"antidepressants", DataCategory.HEALTH, null}, {"psychiatric", DataCategory.HEALTH, null},
        {"medical record", DataCategory.HEALTH, null}, {"medical records", DataCategory.HEALTH, null},
        {"medical history", DataCategory.HEALTH, null}, {"medical condition", DataCategory.HEALTH, null},
        {"symptoms", DataCategory.HEALTH, null}, {"covid-19", DataCategory.HEALTH, null},
        {"hepatitis", DataCategory.HEALTH, null}, {"epilepsy", DataCategory.HEALTH, null},
        {"dementia", DataCategory.HEALTH, null}, {"alzheimer's", DataCategory.HEALTH, null},
        {"heart attack", DataCategory.HEALTH, null}, {"heart disease", DataCategory.HEALTH, null},
        {"blood test", DataCategory.HEALTH, null}, {"mri scan", DataCategory.HEALTH, null},
        {"therapist", DataCategory.HEALTH, null}, {"mental health", DataCategory.HEALTH, null},
        {"illness", DataCategory.HEALTH, null}, {"hospitalised", DataCategory.HEALTH, null},
        {"hospitalized", DataCategory.HEALTH, null}, {"overdose", DataCategory.HEALTH, null},
        {"addiction", DataCategory.HEALTH, null}, {"migraine", DataCategory.HEALTH, null},
        {"migraines", DataCategory.HEALTH, null}, {"arthritis", DataCategory.HEALTH, null},
        {"adhd", DataCategory.HEALTH, null}, {"health insurance", DataCategory.HEALTH, null},
        {"blood type", DataCategory.HEALTH, null}, {"disability", DataCategory.HEALTH, null},
        {"salary", DataCategory.FINANCIAL, null}, {"salaries", DataCategory.FINANCIAL, null},
        {"income", DataCategory.FINANCIAL, null}, {"credit score", DataCategory.FINANCIAL, null},
        {"credit rating", DataCategory.FINANCIAL, null}, {"bank account", DataCategory.FINANCIAL, null},
        {"account balance", DataCategory.FINANCIAL, null}, {"bank balance", DataCategory.FINANCIAL, null},
        {"loan", DataCategory.FINANCIAL, null}, {"loans", DataCategory.FINANCIAL, null},
        {"mortgage", DataCategory.FINANCIAL, null}, {"debt", DataCategory.FINANCIAL, "technical"},
        {"debts", DataCategory.FINANCIAL, null}, {"tax return", DataCategory.FINANCIAL, null},
        {"bankruptcy", DataCategory.FINANCIAL, null}, {"net worth", DataCategory.FINANCIAL, null},
        {"routing number", DataCategory.FINANCIAL, null}, {"sort code", DataCategory.FINANCIAL, null},
        {"overdraft", DataCategory.FINANCIAL, null}, {"credit limit", DataCategory.FINANCIAL, null},
        {"payslip", DataCategory.FINANCIAL, null}, {"pay slip", DataCategory.FINANCIAL, null},
        {"wages", DataCategory.FINANCIAL, null}, {"credit history", DataCategory.FINANCIAL, null},
        {"investment portfolio", DataCategory.FINANCIAL, null}, {"pension", DataCategory.FINANCIAL, null},
        {"bank statement", DataCategory.FINANCIAL, null}, {"paycheck", DataCategory.FINANCIAL, null},
        {"savings account", DataCategory.FINANCIAL, null}, {"account number", DataCategory.FINANCIAL, null},
    };
    /** Field-name hints, longest first; a null category blocks shorter hints ({@code mac_address}). */
    private static final Object[][] FIELD_HINTS = {
        {"socialsecuritynumber", DataCategory.NATIONAL_ID}, {"nationalidentifier", DataCategory.NATIONAL_ID},
        {"shippingaddress", DataCategory.POSTAL_ADDRESS}, {"billingaddress", DataCategory.POSTAL_ADDRESS},
        {"accountbalance", DataCategory.FINANCIAL}, {"passportnumber", DataCategory.NATIONAL_ID},
        {"medicalhistory", DataCategory.HEALTH}, {"streetaddress", DataCategory.POSTAL_ADDRESS},
        {"routingnumber", DataCategory.FINANCIAL}, {"walletaddress", null}, {"emailaddress", DataCategory.EMAIL},
        {"mailaddress", DataCategory.EMAIL}, {"homeaddress", DataCategory.POSTAL_ADDRESS},
        {"phonenumber", DataCategory.PHONE}, {"dateofbirth", DataCategory.DATE_OF_BIRTH},
        {"creditscore", DataCategory.FINANCIAL}, {"creditcard", DataCategory.PAYMENT_CARD},
        {"cardnumber", DataCategory.PAYMENT_CARD}, {"postalcode", DataCategory.POSTAL_ADDRESS},
        {"nationalid", DataCategory.NATIONAL_ID}, {"macaddress", null}, {"ipaddress", DataCategory.IP_ADDRESS},
        {"medication", DataCategory.HEALTH}, {"healthrecord", DataCategory.HEALTH}, {"diagnosis", DataCategory.HEALTH},
        {"telephone", DataCategory.PHONE}, {"birthdate", DataCategory.DATE_OF_BIRTH}, {"allergies", DataCategory.HEALTH},
        {"bloodtype", DataCategory.HEALTH}, {"networth", DataCategory.FINANCIAL}, {"sortcode", DataCategory.FINANCIAL},
        {"passport", DataCategory.NATIONAL_ID}, {"birthday", DataCategory.DATE_OF_BIRTH}, {"ccnumber", DataCategory.PAYMENT_CARD},
        {"zipcode", DataCategory.POSTAL_ADDRESS}, {"postcode", DataCategory.POSTAL_ADDRESS}, {"address", DataCategory.POSTAL_ADDRESS},
        {"clientip", DataCategory.IP_ADDRESS}, {"remoteip", DataCategory.IP_ADDRESS}, {"msisdn", DataCategory.PHONE},
        {"mobile", DataCategory.PHONE}, {"salary", DataCategory.FINANCIAL}, {"income", DataCategory.FINANCIAL},
        {"street", DataCategory.POSTAL_ADDRESS}, {"taxid", DataCategory.NATIONAL_ID}, {"email", DataCategory.EMAIL},
        {"phone", DataCategory.PHONE}, {"iban", DataCategory.IBAN}, {"ipv4", DataCategory.IP_ADDRESS},
        {"ipv6", DataCategory.IP_ADDRESS}, {"nino", DataCategory.NATIONAL_ID}, {"card", DataCategory.PAYMENT_CARD},
        {"ssn", DataCategory.NATIONAL_ID}, {"dob", DataCategory.DATE_OF_BIRTH}, {"zip", DataCategory.POSTAL_ADDRESS},
        {"tel", DataCategory.PHONE}, {"pan", DataCategory.PAYMENT_CARD}, {"ip", DataCategory.IP_ADDRESS},
    };

    private static final long HINT_SEED = 0xcbf29ce484222325L;
    private static final long HINT_PRIME = 0x100000001b3L;

    /** TERMS' phrases, categories and cancelling words (or null), by index. */
    private static final char[][] TERM_WORDS = new char[TERMS.length][], TERM_CANCELS = new char[TERMS.length][];
    private static final DataCategory[] TERM_CATEGORIES = new DataCategory[TERMS.length];
    /** Indices into TERMS by the term's first two letters (a..z, a..z), in TERMS order. */
    private static final int[][] TERMS_BY_PAIR = new int[26 * 26][];
    /** Third letters (bit {@code c - 'a'}) of the terms of each first-two-letter pair: one test rules most pairs' words out. */
    private static final int[] TERMS_THIRD = new int[26 * 26];
    /** Months by first two letters (a..z, a..z), in MONTHS order (the first that matches wins). */
    private static final char[][][] MONTHS_BY_PAIR = new char[26 * 26][][];
    /** Third letters (bit {@code c - 'a'}) of the terms and month names of each first-two-letter pair (a..z, a..z). */
    private static final int[] WORD_THIRD = new int[26 * 26];
    /** Lowercase first letters of the words of each word list that near()/after() search, as a 128-bit set. */
    private static final long[] PHONE_FIRST = firstLetters(PHONE_WORDS), BIRTH_FIRST = firstLetters(BIRTH_WORDS),
            NOT_PHONE_FIRST = firstLetters(NOT_PHONE_WORDS), VERSION_FIRST = firstLetters(VERSION_WORDS),
            SSN_FIRST = firstLetters(SSN_WORDS), ROMANCE_FIRST = firstLetters(ROMANCE_BEFORE_NUMBER);
    /** Field hints as hashes of their letters read backwards, sorted, with their categories (null: blocker). */
    private static final long[] HINT_HASHES;
    private static final DataCategory[] HINT_CATEGORIES;

    static {
        for (int i = 0; i < TERMS.length; i++) {
            TERM_WORDS[i] = ((String) TERMS[i][0]).toCharArray();
            TERM_CATEGORIES[i] = (DataCategory) TERMS[i][1];
            TERM_CANCELS[i] = TERMS[i][2] == null ? null : ((String) TERMS[i][2]).toCharArray();
        }
        indexByFirstLetters();
        long[][] pairs = new long[FIELD_HINTS.length][];
        for (int i = 0; i < FIELD_HINTS.length; i++) {
            String key = (String) FIELD_HINTS[i][0];
            long h = HINT_SEED;
            for (int k = key.length() - 1; k >= 0; k--) h = (h ^ key.charAt(k)) * HINT_PRIME;
            pairs[i] = new long[] {h, i};
        }
        java.util.Arrays.sort(pairs, (x, y) -> Long.compare(x[0], y[0]));
        HINT_HASHES = new long[pairs.length];
        HINT_CATEGORIES = new DataCategory[pairs.length];
        for (int i = 0; i < pairs.length; i++) {
            HINT_HASHES[i] = pairs[i][0];
            HINT_CATEGORIES[i] = (DataCategory) FIELD_HINTS[(int) pairs[i][1]][1];
        }
    }

    /**
     * Fills TERMS_BY_PAIR, TERMS_THIRD, MONTHS_BY_PAIR and WORD_THIRD in one pass over the terms and the months (a method
     * of its own, out of the static initialiser: it ran 676 passes over all terms there, and the interpreter's loop made
     * the JIT compile the whole 6 KB initialiser on the stack, twice, at every start, session 25). A term whose first
     * letter is not a..z is in no pair (none is); one whose second or third is not a..z stops the class from loading.
     */
    private static void indexByFirstLetters() {
        int[] counts = new int[26 * 26];
        for (Object[] term : TERMS) {
            int pair = pairOf((String) term[0]);
            if (pair >= 0) counts[pair]++;
        }
        for (int pair = 0; pair < 26 * 26; pair++) TERMS_BY_PAIR[pair] = new int[counts[pair]];
        java.util.Arrays.fill(counts, 0);
        for (int i = 0; i < TERMS.length; i++) {
            String t = (String) TERMS[i][0];
            int pair = pairOf(t);
            if (pair < 0) continue;
            TERMS_BY_PAIR[pair][counts[pair]++] = i;   // in TERMS order
            TERMS_THIRD[pair] |= 1 << (t.charAt(2) - 'a');
        }
        List<List<String>> months = new ArrayList<>(java.util.Collections.nCopies(26 * 26, null));
        for (String m : MONTHS) {
            int pair = (m.charAt(0) - 'a') * 26 + m.charAt(1) - 'a';
            if (months.get(pair) == null) months.set(pair, new ArrayList<>());
            months.get(pair).add(m);
        }
        for (int pair = 0; pair < 26 * 26; pair++) {
            List<String> ms = months.get(pair);
            MONTHS_BY_PAIR[pair] = words(ms == null ? new String[0] : ms.toArray(new String[0]));
            WORD_THIRD[pair] = TERMS_THIRD[pair];
            for (char[] m : MONTHS_BY_PAIR[pair]) WORD_THIRD[pair] |= 1 << (m[2] - 'a');
        }
    }

    /** The index of a term's first two letters (a..z, a..z), or -1 when its first is not a..z. */
    private static int pairOf(String t) {
        int first = t.charAt(0) - 'a';
        if (first < 0 || first >= 26) return -1;
        char second = t.charAt(1);
        // every term's second char is a lowercase ASCII letter (checked here), so the pair decides
        if (second < 'a' || second > 'z' || t.charAt(2) < 'a' || t.charAt(2) > 'z') {
            throw new IllegalStateException("term " + t + " needs another index"); // terms() relies on three letters
        }
        return first * 26 + second - 'a';
    }

    /** The shared instance. */
    public static final DataCategoryExtractor INSTANCE = new DataCategoryExtractor();

    private DataCategoryExtractor() {}

    /** All spans found in {@code text}, in the order detectors report them (allocates). */
    public List<CategorySpan> spans(String text) {
        List<CategorySpan> out = new ArrayList<>();
        detect(text, (s, e, c) -> out.add(new CategorySpan(s, e, c)));
        return out;
    }

    /** The categories found in {@code text}. */
    public Set<DataCategory> categories(String text) {
        EnumSet<DataCategory> out = EnumSet.noneOf(DataCategory.class);
        detect(text, (s, e, c) -> out.add(c));
        return out;
    }

    /** The categories found in {@code text} as a mask of {@link DataCategory#bit()}s. */
    public long mask(CharSequence text, SpanSink.Mask scratch) {
        return mask(text, scratch, 0L);
    }

    /**
     * The categories found in {@code text}, leaving out detectors whose categories are all in {@code known}
     * (found elsewhere already): {@code known | mask(text, scratch, known)} equals {@code known | mask(text, scratch)}.
     * The scratch's own position arrays are used, so no per-thread lookup.
     */
    public long mask(CharSequence text, SpanSink.Mask scratch, long known) {
        return maskUntil(text, scratch, known, 0L);
    }

    /**
     * Like {@link #mask(CharSequence, SpanSink.Mask, long)}, but may return as soon as a category in {@code stop}
     * is found: whenever the result has no bit of {@code stop}, it is the whole {@code mask(text, scratch, known)}.
     * For a question like "is there any personal data", which the first e-mail address answers.
     */
    public long maskUntil(CharSequence text, SpanSink.Mask scratch, long known, long stop) {
        scratch.clear();
        if (text == null) return 0;
        int len = Math.min(text.length(), MAX_SCAN);
        if (len == 0) return 0;
        if (scratch.starts == null || scratch.starts.length < len || scratch.chars.length < len + PAD) {
            scratch.starts = new int[Math.max(len, 256)];
            scratch.digitStarts = new int[Math.max(len, 256)];
            scratch.marks = new int[Math.max(len, 256)];
            scratch.chars = new char[Math.max(len, 256) + PAD];
        }
        scan(text, len, scratch, scratch.starts, scratch.digitStarts, scratch.marks, scratch.chars, known, stop, scratch, true);
        return scratch.mask();
    }

    /** The spans the mask path's scan reports (the word-start detectors fused, spans by position); for tests. */
    void detectFused(CharSequence text, SpanSink sink) {
        if (text == null) return;
        int len = Math.min(text.length(), MAX_SCAN);
        if (len == 0) return;
        int m = Math.max(len, 256);
        scan(text, len, sink, new int[m], new int[m], new int[m], new char[m + PAD], 0L, 0L, null, true);
    }

    /** Reports every span of personal data in {@code text} to {@code sink}. */
    public void detect(CharSequence text, SpanSink sink) {
        if (text == null) return;
        int len = Math.min(text.length(), MAX_SCAN);
        if (len == 0) return;
        Scratch scratch = SCRATCH.get();
        SCRATCH.set(null); // a sink that detects again (re-entry) gets its own arrays
        if (scratch == null) scratch = new Scratch();
        if (scratch.starts.length < len) {
            scratch.starts = new int[len];
            scratch.digitStarts = new int[len];
            scratch.marks = new int[len];
            scratch.chars = new char[len + PAD];
        }
        try {
            scan(text, len, sink, scratch.starts, scratch.digitStarts, scratch.marks, scratch.chars, 0L, 0L, null, false);
        } finally {
            SCRATCH.set(scratch);
        }
    }

    private static final long EMAIL = DataCategory.EMAIL.bit(), CARD = DataCategory.PAYMENT_CARD.bit(), IBAN = DataCategory.IBAN.bit(),
            NATIONAL_ID = DataCategory.NATIONAL_ID.bit(), IP = DataCategory.IP_ADDRESS.bit(), PHONE = DataCategory.PHONE.bit(),
            BIRTH = DataCategory.DATE_OF_BIRTH.bit(), ADDRESS = DataCategory.POSTAL_ADDRESS.bit(),
            TERMS_BITS = DataCategory.HEALTH.bit() | DataCategory.FINANCIAL.bit();

    /**
     * E-mail addresses (they need no word starts), then one pre-pass over {@code text[0, len)}, then the
     * detectors that can find something and are not skipped; when {@code found} (the sink, as a mask) has
     * a category of {@code stop}, the rest is left out. With {@code fused}, the five detectors that visit
     * every word start (IBAN, national ids, dates of birth, addresses, terms) share one walk over them:
     * the same spans, reported by position instead of detector by detector (so only for masks).
     */
    private static void scan(CharSequence text, int len, SpanSink sink, int[] starts, int[] digitStarts, int[] marks, char[] chars,
            long skip, long stop, SpanSink.Mask found, boolean fused) {
        // e-mail addresses first, on the text itself: when one ends the scan (stop), the text is not copied
        int firstAt = nextAt(text, 0, len);
        if (firstAt >= 0 && firstAt < len && (skip & EMAIL) == 0) {
            emails(text, firstAt, len, sink, (stop & EMAIL) != 0);
            if (stop != 0 && (found.mask() & stop) != 0) return;
        }
        // the pre-pass and the other detectors read a copy (one bulk copy beats a String.charAt per char read)
        char[] cs = chars;
        int firstColon;
        if (text instanceof String str) {
            str.getChars(0, len, cs, 0);
            firstColon = str.indexOf(':'); // a vectorised search; one past the scanned part counts as none
        } else {
            for (int i = 0; i < len; i++) cs[i] = text.charAt(i);
            firstColon = 0;
            while (firstColon < len && cs[firstColon] != ':') firstColon++;
        }
        if (firstColon >= len) firstColon = -1;
        int digits = 0, spaceDigits = 0;
        // Word starts (an alphanumeric char after a non-alphanumeric one, or first): every detector but
        // e-mail, phone and IPv6 can only begin a span there, so they visit these instead of every char.
        // Marks: ':' '+' '(' after a non-alphanumeric char (or first), where IPv6 and phone numbers may begin.
        // Digit starts: the word starts at an ASCII digit, the only ones where cards, IPv4 and phone numbers
        // (besides marks) begin; prose has few.
        // With fused, a word start at an ASCII letter is kept for the walk only when a word-start detector
        // may begin there (LOWERCASE_STARTS, UPPERCASE_STARTS, FOURTH_CODES, mayEndGermanicStreet), by the codes
        // of its first four chars, read past the word's end unchecked: three zero chars follow the text. The walk then
        // visits a tenth of prose's word starts; ipv6, which needs them all, finds them again (rarely: only a
        // text with an IPv6-like run of colons gets there). Without fused, every start is kept.
        cs[len] = 0;
        cs[len + 1] = 0;
        cs[len + 2] = 0;
        long[] lowerKeep = fused ? LOWERCASE_STARTS : EVERY_START, upperKeep = fused ? UPPERCASE_STARTS : EVERY_START;
        int[] fourthKeep = fused ? FOURTH_CODES : EVERY_FOURTH;
        char[] classes = CHAR_CLASS;
        int n = 0, nm = 0, nd = 0;
        int startClasses = 0; // union of the classes of the chars that start words (terms begin with a letter there)
        boolean afterAlnum = false; // the previous char is alphanumeric
        int i = 0;
        while (i < len) {
            int k = classes[cs[i]];
            if ((k & C_ALNUM) == 0) {
                if (!afterAlnum && (k & C_MARK) != 0) marks[nm++] = i;
                afterAlnum = false;
                i++;
                continue;
            }
            startClasses |= k;
            int start = i, kept; // kept: 1 when the walk visits this start, 0 when it may leave it out, -1 undecided
            if ((k & (C_LOWER | C_UPPER)) != 0) {
                int second = classes[cs[i + 1]];
                int key = ((k >>> CODE_SHIFT) - 1) * CODES * CODES + (second >>> CODE_SHIFT) * CODES + (classes[cs[i + 2]] >>> CODE_SHIFT);
                long[] keep = (k & C_LOWER) != 0 ? lowerKeep : upperKeep;
                kept = (int) (keep[key >>> 6] >>> key) & 1;
                if (kept != 0) kept = fourthKeep[key] >>> (classes[cs[i + 3]] >>> CODE_SHIFT) & 1; // most words fail before
                if (kept == 0 && (k & C_UPPER) != 0) kept = (second & (C_UPPER | C_DIGIT)) != 0 ? 1 : -1;
            } else {
                kept = 1;
                if ((k & C_DIGIT) != 0) {
                    digitStarts[nd++] = i;
                    if (i > 0 && cs[i - 1] == ' ') spaceDigits++;
                }
            }
            digits += k & C_DIGIT;
            // the rest of the word in a loop of its own: measured a fifth faster than one loop with a
            // word-start test per char, on this class's benchmark texts and on random prose alike
            while (++i < len) {
                k = classes[cs[i]];
                if ((k & C_ALNUM) == 0) break;
                digits += k & C_DIGIT;
            }
            if (kept < 0) kept = mayEndGermanicStreet(cs, i) ? 1 : 0;
            if (kept != 0) starts[n++] = start; // a branch, not a store at n += kept: n would wait for the table
            afterAlnum = true;
        }
        boolean letters = (startClasses & C_LETTER) != 0;
        // each detector needs at least this many digits in the whole text
        if (fused) {
            if (digits >= 13 && (skip & CARD) == 0) {
                cards(cs, len, digitStarts, nd, sink);
                if (stop != 0 && (found.mask() & stop) != 0) return;
            }
            if (digits >= 4 && (skip & IP) == 0) {
                ipv4(cs, len, digitStarts, nd, sink);
                if (stop != 0 && (found.mask() & stop) != 0) return;
            }
            if (digits >= 7 && (skip & PHONE) == 0) {
                phones(cs, len, digitStarts, nd, marks, nm, sink);
                if (stop != 0 && (found.mask() & stop) != 0) return;
            }
            wordStartDetectors(cs, len, starts, n, sink, digits >= 4 && (skip & IBAN) == 0, digits >= 6 && (skip & NATIONAL_ID) == 0,
                    digits >= 4 && (skip & BIRTH) == 0, digits >= 1 && (skip & ADDRESS) == 0, spaceDigits > 0,
                    letters && (skip & TERMS_BITS) != TERMS_BITS);
            if (stop != 0 && (found.mask() & stop) != 0) return;
            if (firstColon >= 0 && (skip & IP) == 0 && mayHoldIpv6(cs, firstColon, len)) {
                ipv6(cs, len, starts, wordStarts(cs, len, starts), marks, nm, sink); // every word start, not only the walk's
            }
            return;
        }
        // detector by detector, so spans come in the order spans() documents
        if (digits >= 13 && (skip & CARD) == 0) {
            cards(cs, len, digitStarts, nd, sink);
        }
        if (digits >= 4 && (skip & IBAN) == 0) {
            ibans(cs, len, starts, n, sink);
        }
        if (digits >= 6 && (skip & NATIONAL_ID) == 0) {
            nationalIds(cs, len, starts, n, sink);
        }
        if (digits >= 4 && (skip & IP) == 0) {
            ipv4(cs, len, digitStarts, nd, sink);
        }
        if (digits >= 7 && (skip & PHONE) == 0) {
            phones(cs, len, digitStarts, nd, marks, nm, sink);
        }
        if (digits >= 4 && (skip & BIRTH) == 0) {
            birthDates(cs, len, starts, n, sink);
        }
        if (digits >= 1 && (skip & ADDRESS) == 0) {
            // every form but a number-first street ("221B Baker Street") has a space before a digit
            // (a house number, a ZIP, a postcode's second half, a PO box number): without one, only
            // digits can start an address
            if (spaceDigits > 0) addresses(cs, len, starts, n, sink);
            else addresses(cs, len, digitStarts, nd, sink);
        }
        if (firstColon >= 0 && (skip & IP) == 0 && mayHoldIpv6(cs, firstColon, len)) {
            ipv6(cs, len, starts, n, marks, nm, sink);
        }
        if (letters && (skip & TERMS_BITS) != TERMS_BITS) terms(cs, len, starts, n, sink);
    }

    /**
     * The detectors that begin only at word starts, in one walk over them; each keeps its own position
     * after its last span, as its own loop does ({@link #ibans}, {@link #nationalIds}, {@link #birthDates},
     * {@link #addresses}, {@link #terms}). Without a space before a digit, addresses begin only at digits.
     */
    private static void wordStartDetectors(char[] s, int len, int[] starts, int nStarts, SpanSink sink, boolean iban, boolean nationalId,
            boolean birth, boolean address, boolean addressAnyStart, boolean terms) {
        if (!(iban || nationalId || birth || address || terms)) return;
        int nextIban = 0, nextId = 0, nextBirth = 0, nextAddress = 0;
        for (int w = 0; w < nStarts; w++) {
            int i = starts[w];
            char c = s[i];
            if (c >= 'a' && c <= 'z' && !mayStartAtLowercase(s, i, len)) continue; // most words of prose
            if (isDigit(c) && !mayStartAtDigit(s, i, len)) continue; // most numbers in JSON
            int e;
            if (iban && i >= nextIban && i + 4 <= len && (e = ibanAt(s, i, len)) >= 0) {
                sink.add(i, e, DataCategory.IBAN);
                nextIban = e;
            }
            if (nationalId && i >= nextId && (e = nationalIdAt(s, i, len)) > 0) {
                sink.add(i, e, DataCategory.NATIONAL_ID);
                nextId = e;
            }
            if (birth && i >= nextBirth && (e = dateStartingAt(s, i, len)) >= 0) {
                if (birthWordNear(s, i, e, len)) sink.add(i, e, DataCategory.DATE_OF_BIRTH);
                nextBirth = e;
            }
            if (address && i >= nextAddress && (addressAnyStart || isDigit(s[i])) && (e = addressAt(s, i, len)) > i) {
                sink.add(i, e, DataCategory.POSTAL_ADDRESS);
                nextAddress = e;
            }
            if (terms && (e = termAt(s, i, len)) >= 0) sink.add(i, i + TERM_WORDS[e].length, TERM_CATEGORIES[e]);
        }
    }

    /**
     * False when no word-start detector can begin at {@code i}, a lowercase ASCII letter: there only a
     * term or a month name (by their first three letters), an IBAN (two letters, then two digits) and a PO
     * box ({@code p}) may begin. A non-ASCII char may case-map to an ASCII letter: true.
     */
    private static boolean mayStartAtLowercase(char[] s, int i, int len) {
        if (s[i] == 'p') return true;
        if (i + 2 >= len) return false; // every term and month has three letters, an IBAN more
        char d = s[i + 1], t = s[i + 2];
        if (d >= 128 || t >= 128) return true;
        int second = d | 0x20; // a..z for an ASCII letter of either case only
        if (second < 'a' || second > 'z') return false;
        if (isDigit(t)) return i + 3 < len && isDigit(s[i + 3]);
        int third = t | 0x20;
        return third >= 'a' && third <= 'z' && (WORD_THIRD[(s[i] - 'a') * 26 + second - 'a'] & (1 << (third - 'a'))) != 0;
    }

    /**
     * False when no word-start detector can begin at {@code i}, an ASCII digit: with {@code n} digits there,
     * a national id needs 3 (then '-' or ' '), 8 (then '-', ' ' or a letter) or 9; a numeric date a '-', '/'
     * or '.' after them; a written date at most 2, then ' ' or a letter (12th); a number-first street at
     * most 5, then a letter, ',' or ' ' (after ' ', a capitalised word or a Romance one: rue, avenue...); a US
     * ZIP 5. So a number followed by a quote, a bracket or ':' (as in JSON) starts nothing, nor a count in
     * prose ("1234 arrived").
     */
    private static boolean mayStartAtDigit(char[] s, int i, int len) {
        int n = digitRun(s, i, len);
        if (n == 5 || n == 9) return true;
        if (i + n >= len) return false;
        char x = s[i + n];
        if (x == ' ') { // then a national id of 3 or 8, a written date of at most 2, or a street of at most 5 ("12 Baker Street")
            return n <= 3 || n == 8 || (n < 5 && i + n + 1 < len
                    && (Character.isUpperCase(s[i + n + 1]) || beginsRomanceAfterNumber(s, i + n + 1, len)));
        }
        return x == ',' || x == '-' || x == '/' || x == '.' || x >= 128 || isAsciiLetter(x);
    }

    /** The first two letters (a..z, a..z) of the words of ROMANCE_AFTER_NUMBER, as a set of pairs. */
    private static final long[] ROMANCE_AFTER_PAIRS = new long[(26 * 26 + 63) / 64];

    static {
        for (char[] w : ROMANCE_AFTER_NUMBER) {
            int pair = (w[0] - 'a') * 26 + w[1] - 'a';
            ROMANCE_AFTER_PAIRS[pair >>> 6] |= 1L << pair;
        }
    }

    /** False when no word of ROMANCE_AFTER_NUMBER begins at {@code p}: they begin with two ASCII letters, matched lowercased. */
    private static boolean beginsRomanceAfterNumber(char[] s, int p, int len) {
        if (p + 1 >= len) return false;
        char a = lower(s[p]), b = lower(s[p + 1]);
        if (a < 'a' || a > 'z' || b < 'a' || b > 'z') return false;
        int pair = (a - 'a') * 26 + b - 'a';
        return (ROMANCE_AFTER_PAIRS[pair >>> 6] & 1L << pair) != 0;
    }

    /**
     * False when {@link #ipv6} can find nothing: an address lies in a run of hex digits and colons and has
     * two colons in a row (compressed) or seven colons (full). JSON's {@code "key":"value"} colons sit in
     * runs of one or two, so JSON skips the detector. {@code firstColon}: the text's first ':'.
     */
    private static boolean mayHoldIpv6(char[] cs, int firstColon, int len) {
        // from colon to colon: the run of hex digits and colons reaching colon p holds `colons` of them
        int p = firstColon, colons = 1;
        while (colons < 7) {
            int q = p + 1;
            while (q < len && isHexChar(cs[q])) q++;
            if (q >= len) return false;
            if (cs[q] == ':') {
                if (q == p + 1) return true; // two in a row
                colons++;
            } else {
                while (q < len && cs[q] != ':') q++; // the run ended: the next colon begins another
                if (q >= len) return false;
                colons = 1;
            }
            p = q;
        }
        return true;
    }

    private static boolean isHexChar(char c) { return (CHAR_CLASS[c] & C_HEX) != 0; }

    /**
     * False when a capitalised word, {@code s[start, e)} (e: the first char after its letters and digits),
     * can begin no {@link #germanicStreet}: its run of letters, '-' and '.' must end at a space and a digit
     * ({@code Hauptstraße 5}, {@code Haupt-Str. 5}). Reads {@code s[e + 1]}, which the padding makes safe.
     */
    private static boolean mayEndGermanicStreet(char[] s, int e) {
        char x = s[e];
        if (x == ' ') return isDigit(s[e + 1]);
        if (x != '-' && x != '.') return false;
        char y = s[e + 1];
        return y == ' ' || y == '-' || y == '.' || (CHAR_CLASS[y] & C_LETTER) != 0;
    }

    /** The key of LOWERCASE_STARTS of a word's first three chars (ASCII letters). */
    private static int wordKey(char[] w) {
        return ((w[0] - 'a') * CODES + (CHAR_CLASS[w[1]] >>> CODE_SHIFT)) * CODES + (CHAR_CLASS[w[2]] >>> CODE_SHIFT);
    }

    /** Every word start of {@code s[0, len)} into {@code starts} (as the pre-pass finds them unfiltered); returns how many. */
    private static int wordStarts(char[] s, int len, int[] starts) {
        int n = 0;
        boolean afterAlnum = false;
        for (int i = 0; i < len; i++) {
            boolean alnum = (CHAR_CLASS[s[i]] & C_ALNUM) != 0;
            if (alnum && !afterAlnum) starts[n++] = i;
            afterAlnum = alnum;
        }
        return n;
    }

    /** Chars after the text in the copy the scan reads (zeros: no class, code 0), so the pre-pass reads {@code i + 2} unchecked. */
    private static final int PAD = 3;

    // Char classes for the pre-pass: an ASCII digit (counted), letter (any), alphanumeric (any), hex digit, marks
    // ': + (', and an ASCII lowercase letter; above CODE_SHIFT a code for LOWERCASE_STARTS: 1..26 an ASCII letter
    // of either case, 27 an ASCII digit, 28 any char above ASCII, 0 the rest.
    private static final int C_DIGIT = 1, C_LETTER = 2, C_ALNUM = 4, C_HEX = 8, C_LOWER = 16, C_MARK = 32, C_UPPER = 64;
    private static final int CODE_SHIFT = 8, CODES = 29, CODE_DIGIT = 27, CODE_ABOVE_ASCII = 28;
    /** The class and code of every char (a table of all 65536: no ASCII branch, no Character call in the pre-pass). */
    private static final char[] CHAR_CLASS = new char[65536];
    /**
     * Lowercase word starts where a word-start detector may begin, by the codes of their first three chars
     * (first letter, second and third code): a char above ASCII second or third (it may case-map to ASCII);
     * a letter, then a digit (an IBAN); three letters that begin a term or month name (as the walk's own test,
     * {@link #mayStartAtLowercase}); {@code p} and then 'o' or no letter or digit (a PO box, the only form
     * that begins with p). Elsewhere every word-start detector fails, so the walk need not visit.
     */
    private static final long[] LOWERCASE_STARTS = new long[(26 * CODES * CODES + 63) / 64];
    /**
     * Capitalised word starts that may begin a match, as LOWERCASE_STARTS but for the first three letters of
     * a Romance street's lead word too ({@code Via Roma 12}); also kept, outside this table: an uppercase
     * ASCII letter or digit second (NINO, NIE, UK postcode) and a word {@link #mayEndGermanicStreet}.
     */
    private static final long[] UPPERCASE_STARTS = new long[LOWERCASE_STARTS.length];
    /**
     * For each key of LOWERCASE_STARTS and UPPERCASE_STARTS, the codes (bit {@code code}) the fourth char may
     * have: where the key is a term's or month name's first three letters, the fourth letter of each such word
     * longer than three, and for a word of three letters any code but a letter's (it must end there: a
     * month name may go on with '.'); a char above ASCII always. Every code for every other key (IBAN, PO
     * box, Romance street, a char above ASCII among the three).
     */
    private static final int[] FOURTH_CODES = new int[26 * CODES * CODES];
    /** Every lowercase word start and every fourth char: the detector-by-detector walk visits them all. */
    private static final long[] EVERY_START = new long[LOWERCASE_STARTS.length];
    private static final int[] EVERY_FOURTH = new int[FOURTH_CODES.length];

    static {
        fillTables();
    }

    /**
     * Fills CHAR_CLASS, the start sets and FOURTH_CODES: a method of its own, out of the static initialiser, since its
     * loop over every char (65,536 turns) made the JIT compile the whole initialiser, the literal tables above included,
     * on the stack (a 350 KB compiled method, 80-600 ms of a compiler thread at every start, session 25).
     */
    private static void fillTables() {
        for (int c = 0; c < 65536; c++) {
            int k = 0, code;
            if (c < 128) {
                if (c >= '0' && c <= '9') k |= C_DIGIT | C_ALNUM;
                if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) k |= C_LETTER | C_ALNUM;
                if (c >= 'a' && c <= 'z') k |= C_LOWER;
                if (c >= 'A' && c <= 'Z') k |= C_UPPER;
                if (isHex((char) c)) k |= C_HEX;
                if (c == ':' || c == '+' || c == '(') k |= C_MARK;
                code = isAsciiLetter((char) c) ? (c | 0x20) - 'a' + 1 : isDigit((char) c) ? CODE_DIGIT : 0;
            } else {
                k = (Character.isLetter(c) ? C_LETTER : 0) | (Character.isLetterOrDigit(c) ? C_ALNUM : 0);
                code = CODE_ABOVE_ASCII;
            }
            CHAR_CLASS[c] = (char) (k | code << CODE_SHIFT);
        }
        java.util.Arrays.fill(EVERY_START, -1L);
        for (int first = 0; first < 26; first++) {
            for (int second = 0; second < CODES; second++) {
                for (int third = 0; third < CODES; third++) {
                    boolean may;
                    if (second == CODE_ABOVE_ASCII || third == CODE_ABOVE_ASCII) may = true;
                    else if (first == 'p' - 'a' && (second == 0 || second == 'o' - 'a' + 1)) may = true;
                    else if (second < 1 || second > 26) may = false;
                    else if (third == CODE_DIGIT) may = true;
                    else if (third < 1 || third > 26) may = false;
                    else may = (WORD_THIRD[first * 26 + second - 1] & (1 << (third - 1))) != 0;
                    int key = (first * CODES + second) * CODES + third;
                    if (may) LOWERCASE_STARTS[key >>> 6] |= 1L << key;
                }
            }
        }
        System.arraycopy(LOWERCASE_STARTS, 0, UPPERCASE_STARTS, 0, LOWERCASE_STARTS.length);
        java.util.Arrays.fill(EVERY_FOURTH, -1);
        java.util.Arrays.fill(FOURTH_CODES, -1);
        // the keys of terms and month names (all ASCII letters first): only the fourth chars they go on with
        List<char[]> words = new ArrayList<>();
        for (char[] t : TERM_WORDS) words.add(t);
        for (String m : MONTHS) words.add(m.toCharArray());
        for (char[] w : words) FOURTH_CODES[wordKey(w)] = 1 << CODE_ABOVE_ASCII;
        for (char[] w : words) {
            if (w.length > 3) FOURTH_CODES[wordKey(w)] |= 1 << (CHAR_CLASS[w[3]] >>> CODE_SHIFT);
            else FOURTH_CODES[wordKey(w)] |= ~(((1 << 27) - 1) & ~1); // no letter (codes 1..26) after a word of three
        }
        // keys where another detector may begin: every fourth char
        for (char[] w : ROMANCE_BEFORE_NUMBER) {
            int key = wordKey(w);
            UPPERCASE_STARTS[key >>> 6] |= 1L << key;
            FOURTH_CODES[key] = -1;
        }
        for (int first = 0; first < 26; first++) {
            for (int second = 0; second < CODES; second++) {
                for (int third = 0; third < CODES; third++) {
                    int key = (first * CODES + second) * CODES + third;
                    if (first == 'p' - 'a' || second == CODE_ABOVE_ASCII || third == CODE_ABOVE_ASCII || third == CODE_DIGIT) {
                        FOURTH_CODES[key] = -1;
                    }
                }
            }
        }
    }

    /** Per-thread positions of the text being scanned (grow to the longest text seen). */
    private static final class Scratch {
        int[] starts = new int[256];
        int[] digitStarts = new int[256];
        int[] marks = new int[256];
        char[] chars = new char[256 + PAD];
    }

    private static final ThreadLocal<Scratch> SCRATCH = new ThreadLocal<>();

    /** Index into {@code a} or {@code b} (merged, ascending; they never share a position) of the next position. */
    private static int merged(int[] a, int na, int ia, int[] b, int nb, int ib) {
        int x = ia < na ? a[ia] : Integer.MAX_VALUE;
        int y = ib < nb ? b[ib] : Integer.MAX_VALUE;
        return Math.min(x, y);
    }

    /**
     * The category a field name suggests ({@code customer_email}, {@code dateOfBirth}, {@code iban}),
     * or null. The hint must match whole trailing words of the name, so {@code hotel} is not {@code tel}.
     */
    public DataCategory fieldHint(CharSequence name) {
        if (name == null) return null;
        DataCategory found = null;
        long h = HINT_SEED;
        int letters = 0;
        // from the last char back; a word starts at i when name[i - 1] is no letter or digit (or i is 0),
        // or at a lower-to-upper case change (dateOfBirth)
        for (int i = name.length() - 1; i >= 0 && letters < 24; i--) {
            char c = name.charAt(i);
            if (!alnum(c)) continue;
            h = (h ^ lower(c)) * HINT_PRIME;
            letters++;
            char prev = i == 0 ? ' ' : name.charAt(i - 1);
            boolean start = !alnum(prev) || (prev < 128 && c < 128 ? prev >= 'a' && prev <= 'z' && c >= 'A' && c <= 'Z'
                    : Character.isLowerCase(prev) && Character.isUpperCase(c));
            if (!start) continue;
            int k = java.util.Arrays.binarySearch(HINT_HASHES, h);
            if (k >= 0) found = HINT_CATEGORIES[k]; // the longest matching trailing words win (blockers too)
        }
        return found;
    }

    // ---- e-mail

    /**
     * E-mail addresses around each '@' of {@code s[0, len)} from {@code firstAt} (the first one) on; with
     * {@code one}, only the first address (the caller stops at it). Reads the text itself: a few chars around
     * each '@', found by a vectorised search in a String.
     */
    private static void emails(CharSequence s, int firstAt, int len, SpanSink sink, boolean one) {
        int from = 0;
        for (int p = firstAt; p >= 0 && p < len; p = nextAt(s, p + 1, len)) {
            if (p < from) continue;
            int a = p;
            while (a > 0 && localChar(s.charAt(a - 1))) a--;
            while (a < p && s.charAt(a) == '.') a++;
            if (a == p) continue;
            int b = p + 1;
            while (b < len && domainChar(s.charAt(b))) b++;
            while (b > p + 1 && (s.charAt(b - 1) == '.' || s.charAt(b - 1) == '-')) b--;
            if (!validDomain(s, p + 1, b)) continue;
            sink.add(a, b, DataCategory.EMAIL);
            if (one) return;
            from = b;
        }
    }

    /** The first '@' of {@code s} at or after {@code from}: -1 or at least {@code len} when none is before {@code len}. */
    private static int nextAt(CharSequence s, int from, int len) {
        if (s instanceof String str) return str.indexOf('@', from);
        for (int p = from; p < len; p++) if (s.charAt(p) == '@') return p;
        return -1;
    }

    private static boolean localChar(char c) {
        return isAsciiAlnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-' || c == '\'';
    }

    private static boolean domainChar(char c) { return isAsciiAlnum(c) || c == '.' || c == '-'; }

    private static boolean validDomain(CharSequence s, int a, int b) {
        if (b - a < 4) return false;
        int lastDot = -1;
        int labelLen = 0;
        for (int i = a; i < b; i++) {
            char c = s.charAt(i);
            if (c == '.') {
                if (labelLen == 0) return false;
                lastDot = i;
                labelLen = 0;
            } else {
                labelLen++;
            }
        }
        if (lastDot < 0 || b - lastDot - 1 < 2) return false;
        for (int i = lastDot + 1; i < b; i++) if (!isAsciiLetter(s.charAt(i))) return false;
        return s.charAt(a) != '-';
    }

    // ---- payment cards

    /**
     * A run (digit groups joined by single spaces or dashes, from a digit start not after '+' or '-') is one
     * card when it is one as a whole (13 to 19 digits, Luhn, issuer). Otherwise it may hold several cards, or a card
     * with other digits beside it ({@code 4111 1111 1111 1111 5500 0000 0000 0004}, {@code 12 4111 1111 1111 1111}):
     * see {@link #cardsInRun}. A run after a word holding a digit ({@code FR76 3000 6000 0112 3456 7890 189}) is
     * part of a longer code (an IBAN) and is not split.
     */
    private static void cards(char[] s, int len, int[] starts, int nStarts, SpanSink sink) {
        int next = 0;
        for (int w = 0; w < nStarts; w++) {
            int i = starts[w];
            if (i < next) continue;
            if (!isDigit(s[i]) || (i > 0 && (s[i - 1] == '+' || s[i - 1] == '-'))) continue;
            int j = i, nd = 0, groups = 1;
            long firstSix = 0;
            // collect digits with single ' ' or '-' between them
            while (j < len) {
                char c = s[j];
                if (isDigit(c)) {
                    if (nd < 6) firstSix = firstSix * 10 + (c - '0');
                    nd++;
                    j++;
                } else if ((c == ' ' || c == '-') && j + 1 < len && isDigit(s[j + 1])) {
                    groups++;
                    j++;
                } else {
                    break;
                }
            }
            if (nd >= 13 && nd <= 19 && boundaryAfter(s, j, len) && luhn(s, i, j) && issuer(firstSix, nd)) {
                sink.add(i, j, DataCategory.PAYMENT_CARD);
            } else if (nd >= 13 && groups > 1 && !afterCodeWord(s, i)) {
                cardsInRun(s, i, j, len, groups, sink);
            }
            next = j;
        }
    }

    /** Whether {@code s[i]} follows a space after a word that holds a digit ({@code FR76 3000}, {@code +1 4111}). */
    private static boolean afterCodeWord(char[] s, int i) {
        if (i < 2 || s[i - 1] != ' ') return false;
        for (int k = i - 2; k >= 0 && alnum(s[k]); k--) if (isDigit(s[k])) return true;
        return false;
    }

    /**
     * The cards in the run {@code s[a, b)} of {@code groups} digit groups that is no card as a whole. A candidate is
     * a window of whole groups with 13 to 19 digits, Luhn-valid, in an issuer range, not followed by a letter or
     * digit, and written as cards are: one unbroken group or a first group of four digits (so a list of short
     * numbers is no card). Of the sets of disjoint candidates, the one covering the most digits is reported (a
     * card next to another is never cut short by a longer window taking the other's first group); among equal ones,
     * the earlier first card, then the longer one. Runs are rare (texts without 13 digits never get here), so the
     * two arrays are made here.
     */
    private static void cardsInRun(char[] s, int a, int b, int len, int groups, SpanSink sink) {
        int[] start = new int[groups + 1]; // start[g]: group g's first char; start[groups] = b + 1 (one separator on)
        int[] best = new int[2 * (groups + 1)]; // best[g]: digits covered from group g on; best[groups + 1 + g]: end group of its card, or 0
        int g = 0;
        start[g++] = a;
        for (int k = a + 1; k < b; k++) if (!isDigit(s[k])) start[g++] = k + 1;
        start[groups] = b + 1;
        for (g = groups - 1; g >= 0; g--) {
            int covered = best[g + 1], takeTo = 0, digits = 0;
            for (int e = g + 1; e <= groups; e++) {
                digits += start[e] - start[e - 1] - 1;
                if (digits > 19) break;
                if (digits < 13 || (e - g > 1 && start[g + 1] - start[g] != 5)) continue;
                int end = start[e] - 1;
                if (digits + best[e] >= covered && boundaryAfter(s, end, len) && luhn(s, start[g], end)
                        && issuer(firstSix(s, start[g]), digits)) {
                    covered = digits + best[e];
                    takeTo = e;
                }
            }
            best[g] = covered;
            best[groups + 1 + g] = takeTo;
        }
        for (g = 0; g < groups; ) {
            int e = best[groups + 1 + g];
            if (e == 0) {
                g++;
                continue;
            }
            sink.add(start[g], start[e] - 1, DataCategory.PAYMENT_CARD);
            g = e;
        }
    }

    /** The first six digits from {@code s[i]} on, separators skipped (a run holds at least 13). */
    private static long firstSix(char[] s, int i) {
        long six = 0;
        for (int n = 0; n < 6; i++) {
            if (isDigit(s[i])) {
                six = six * 10 + (s[i] - '0');
                n++;
            }
        }
        return six;
    }

    /** Luhn checksum over the digits of {@code s[a, b)}. */
    static boolean luhn(char[] s, int a, int b) {
        int sum = 0;
        boolean dbl = false;
        for (int i = b - 1; i >= a; i--) {
            char c = s[i];
            if (!isDigit(c)) continue;
            int d = c - '0';
            if (dbl) {
                d *= 2;
                if (d > 9) d -= 9;
            }
            sum += d;
            dbl = !dbl;
        }
        return sum % 10 == 0;
    }

    /** Known issuer ranges (first six digits) and lengths. */
    static boolean issuer(long six, int len) {
        int d1 = (int) (six / 100000), d2 = (int) (six / 10000), d3 = (int) (six / 1000), d4 = (int) (six / 100);
        if (d1 == 4) return len == 13 || len == 16 || len == 19;                          // Visa
        if ((d2 >= 51 && d2 <= 55) || (d4 >= 2221 && d4 <= 2720)) return len == 16;       // Mastercard
        if (d2 == 34 || d2 == 37) return len == 15;                                       // Amex
        if (d4 == 6011 || (d3 >= 644 && d3 <= 649) || d2 == 65) return len >= 16 && len <= 19; // Discover
        if (d4 >= 3528 && d4 <= 3589) return len >= 16 && len <= 19;                      // JCB
        if ((d3 >= 300 && d3 <= 305) || d2 == 36 || d2 == 38 || d2 == 39) return len >= 14 && len <= 19; // Diners
        if (d2 == 62) return len >= 16 && len <= 19;                                      // UnionPay
        if (d2 == 50 || (d2 >= 56 && d2 <= 58) || d2 == 67) return len >= 16 && len <= 19; // Maestro
        return false;
    }

    // ---- IBAN

    private static void ibans(char[] s, int len, int[] starts, int nStarts, SpanSink sink) {
        int next = 0;
        for (int w = 0; w < nStarts; w++) {
            int i = starts[w];
            if (i + 4 > len) break;
            if (i < next) continue;
            int j = ibanAt(s, i, len);
            if (j >= 0) {
                sink.add(i, j, DataCategory.IBAN);
                next = j;
            }
        }
    }

    /** End of an IBAN starting at word start {@code i} ({@code i + 4 <= len}), or -1. */
    private static int ibanAt(char[] s, int i, int len) {
        if (!isDigit(s[i + 3]) || !isDigit(s[i + 2])) return -1; // the cheapest test first
        char c0 = upper(s[i]), c1 = upper(s[i + 1]);
        if (c0 < 'A' || c0 > 'Z' || c1 < 'A' || c1 > 'Z') return -1;
        int want = ibanLength(c0, c1);
        if (want < 0) return -1;
        int j = i, n = 0;
        while (j < len && n < want) {
            char c = s[j];
            if (isAsciiAlnum(c)) {
                n++;
                j++;
            } else if (c == ' ' && n > 0 && j + 1 < len && isAsciiAlnum(s[j + 1])) {
                j++;
            } else {
                break;
            }
        }
        return n == want && boundaryAfter(s, j, len) && mod97(s, i, j) == 1 ? j : -1;
    }

    private static int ibanLength(char a, char b) {
        for (int k = 0; k + 4 <= IBAN_LENGTHS.length(); k += 5) {
            if (IBAN_LENGTHS.charAt(k) == a && IBAN_LENGTHS.charAt(k + 1) == b) {
                return (IBAN_LENGTHS.charAt(k + 2) - '0') * 10 + (IBAN_LENGTHS.charAt(k + 3) - '0');
            }
        }
        return -1;
    }

    /** ISO 13616 check: move the first four characters to the end, letters to 10..35, remainder mod 97. */
    static int mod97(char[] s, int a, int b) {
        int rem = 0;
        int seen;
        // pass 1: from the fifth alphanumeric character; pass 2: the first four
        for (int pass = 0; pass < 2; pass++) {
            seen = 0;
            for (int i = a; i < b; i++) {
                char c = s[i];
                if (!isAsciiAlnum(c)) continue;
                boolean head = seen < 4;
                seen++;
                if (head != (pass == 1)) continue;
                int v = isDigit(c) ? c - '0' : Character.toUpperCase(c) - 'A' + 10;
                rem = v >= 10 ? (rem * 100 + v) % 97 : (rem * 10 + v) % 97;
            }
        }
        return rem;
    }

    // ---- national identifiers

    private static void nationalIds(char[] s, int len, int[] starts, int nStarts, SpanSink sink) {
        int next = 0;
        for (int w = 0; w < nStarts; w++) {
            int i = starts[w];
            if (i < next) continue;
            int end = nationalIdAt(s, i, len);
            if (end > 0) {
                sink.add(i, end, DataCategory.NATIONAL_ID);
                next = end;
            }
        }
    }

    /** End of a national identifier starting at word start {@code i}, or -1. */
    private static int nationalIdAt(char[] s, int i, int len) {
        char c = s[i];
        int end;
        if (isDigit(c)) {
            if ((end = ssn(s, i, len)) > 0 || (end = sin(s, i, len)) > 0 || (end = dni(s, i, len)) > 0) return end;
        } else if (c >= 'A' && c <= 'Z') {
            if ((end = nino(s, i, len)) > 0 || (end = nie(s, i, len)) > 0) return end;
        }
        return -1;
    }

    /** US SSN {@code 123-45-6789} (or spaced, or nine digits after an SSN word). */
    private static int ssn(char[] s, int i, int len) {
        int end;
        boolean grouped;
        if (digitsAt(s, i, len, 3) && i + 11 <= len && sep(s[i + 3]) && s[i + 3] == s[i + 6]
                && digitsAt(s, i + 4, len, 2) && digitsAt(s, i + 7, len, 4)) {
            end = i + 11;
            grouped = true;
        } else if (digitsAt(s, i, len, 9) && near(s, i, SSN_WORDS, SSN_FIRST, 30)) {
            end = i + 9;
            grouped = false;
        } else {
            return -1;
        }
        if (!boundaryAfter(s, end, len) || (end < len && sep(s[end]) && end + 1 < len && isDigit(s[end + 1]))) return -1;
        int area = num(s, i, 3);
        int group = grouped ? num(s, i + 4, 2) : num(s, i + 3, 2);
        int serial = grouped ? num(s, i + 7, 4) : num(s, i + 5, 4);
        if (area == 0 || area == 666 || area >= 900 || group == 0 || serial == 0) return -1;
        return end;
    }

    /** Canadian SIN {@code 046 454 286}: three groups of three, Luhn-valid. */
    private static int sin(char[] s, int i, int len) {
        if (!(digitsAt(s, i, len, 3) && i + 11 <= len && sep(s[i + 3]) && s[i + 3] == s[i + 7]
                && digitsAt(s, i + 4, len, 3) && digitsAt(s, i + 8, len, 3))) return -1;
        int end = i + 11;
        if (!boundaryAfter(s, end, len) || (end < len && sep(s[end]))) return -1;
        char first = s[i];
        if (first == '0' || first == '8') return -1;
        return luhn(s, i, end) ? end : -1;
    }

    private static final String DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE";

    /** Spanish DNI {@code 12345678Z} with its check letter. */
    private static int dni(char[] s, int i, int len) {
        if (!digitsAt(s, i, len, 8)) return -1;
        int j = i + 8;
        if (j < len && (s[j] == '-' || s[j] == ' ')) j++;
        if (j >= len) return -1;
        char letter = s[j];
        int n = num(s, i, 8);
        if (letter != DNI_LETTERS.charAt(n % 23) || !boundaryAfter(s, j + 1, len)) return -1;
        return j + 1;
    }

    /** Spanish NIE {@code X1234567L}. */
    private static int nie(char[] s, int i, int len) {
        char p = s[i];
        if ((p != 'X' && p != 'Y' && p != 'Z') || !digitsAt(s, i + 1, len, 7)) return -1;
        int j = i + 8;
        if (j < len && s[j] == '-') j++;
        if (j >= len) return -1;
        int n = (p - 'X') * 10_000_000 + num(s, i + 1, 7);
        if (s[j] != DNI_LETTERS.charAt(n % 23) || !boundaryAfter(s, j + 1, len)) return -1;
        return j + 1;
    }

    /** UK National Insurance number {@code AB 12 34 56 C}. */
    private static int nino(char[] s, int i, int len) {
        if (i + 9 > len) return -1;
        char a = s[i], b = s[i + 1];
        if (in(NINO_NOT_FIRST, a) || b < 'A' || b > 'Z' || in(NINO_NOT_SECOND, b)) return -1;
        if ((a == 'B' && b == 'G') || (a == 'G' && b == 'B') || (a == 'N' && b == 'K') || (a == 'K' && b == 'N')
                || (a == 'T' && b == 'N') || (a == 'N' && b == 'T') || (a == 'Z' && b == 'Z')) return -1;
        int j = i + 2;
        for (int g = 0; g < 3; g++) {
            if (j < len && s[j] == ' ') j++;
            if (j + 2 > len || !isDigit(s[j]) || !isDigit(s[j + 1])) return -1;
            j += 2;
        }
        if (j < len && s[j] == ' ') j++;
        if (j >= len || s[j] < 'A' || s[j] > 'D' || !boundaryAfter(s, j + 1, len)) return -1;
        return j + 1;
    }

    // ---- IP addresses

    private static void ipv4(char[] s, int len, int[] starts, int nStarts, SpanSink sink) {
        int next = 0;
        for (int w = 0; w < nStarts; w++) {
            int i = starts[w];
            if (i < next) continue;
            if (!isDigit(s[i]) || (i > 0 && s[i - 1] == '.')) continue;
            int j = i;
            int parts = 0;
            boolean ok = true;
            while (parts < 4) {
                int k = j, v = 0;
                while (k < len && isDigit(s[k]) && k - j < 4) v = v * 10 + (s[k++] - '0');
                int n = k - j;
                if (n == 0 || n > 3 || v > 255 || (n > 1 && s[j] == '0')) { ok = false; break; }
                parts++;
                j = k;
                if (parts < 4) {
                    if (j < len && s[j] == '.') j++;
                    else { ok = false; break; }
                }
            }
            if (!ok || (j < len && (isAsciiAlnum(s[j]) || (s[j] == '.' && j + 1 < len && isDigit(s[j + 1]))))) {
                continue;
            }
            if (versionBefore(s, i)) continue;
            sink.add(i, j, DataCategory.IP_ADDRESS);
            next = j + 1;
        }
    }

    private static boolean versionBefore(char[] s, int i) {
        if (i > 0 && (s[i - 1] == 'v' || s[i - 1] == 'V')) return true;
        return near(s, i, VERSION_WORDS, VERSION_FIRST, 12);
    }

    private static void ipv6(char[] s, int len, int[] starts, int nStarts, int[] marks, int nMarks, SpanSink sink) {
        // an address begins at a hex digit or ':' after a char that is neither alphanumeric nor ':': a word start or a mark
        int next = 0;
        for (int w = 0, m = 0; ; ) {
            int i = merged(starts, nStarts, w, marks, nMarks, m);
            if (i == Integer.MAX_VALUE) break;
            if (w < nStarts && starts[w] == i) w++;
            else m++;
            if (i < next) continue;
            char c = s[i];
            if (!(isHex(c) || c == ':') || (i > 0 && s[i - 1] == ':')) continue;
            int j = i, groups = 0, colons = 0, doubles = 0, run = 0;
            boolean ok = true, letter = false;
            while (j < len) {
                char d = s[j];
                if (isHex(d)) {
                    if (++run > 4) { ok = false; break; }
                    if (!isDigit(d)) letter = true;
                } else if (d == ':') {
                    if (run > 0) groups++;
                    else if (j > i && s[j - 1] == ':') doubles++;
                    run = 0;
                    colons++;
                    if (j + 1 < len && s[j + 1] == ':' && j + 2 < len && s[j + 2] == ':') { ok = false; break; }
                } else {
                    break;
                }
                j++;
            }
            if (run > 0) groups++;
            if (!ok || (j < len && alnum(s[j]))) { next = j + 1; continue; }
            // a trailing colon is punctuation, not part of the address
            int end = j;
            if (end > i + 1 && s[end - 1] == ':' && s[end - 2] != ':') { end--; colons--; }
            boolean full = doubles == 0 && groups == 8 && colons == 7;
            boolean compressed = doubles == 1 && groups <= 7 && groups >= 1 && colons >= 2 && (letter || groups >= 2 || s[i] == ':');
            if (full || compressed) {
                sink.add(i, end, DataCategory.IP_ADDRESS);
            }
            next = j + 1;
        }
    }

    // ---- phone numbers

    private static void phones(char[] s, int len, int[] starts, int nStarts, int[] marks, int nMarks, SpanSink sink) {
        // a number begins at a digit, '+' or '(' after a non-alphanumeric char: a word start or a mark
        int next = 0;
        for (int w = 0, m = 0; ; ) {
            int i = merged(starts, nStarts, w, marks, nMarks, m);
            if (i == Integer.MAX_VALUE) break;
            if (w < nStarts && starts[w] == i) w++;
            else m++;
            if (i < next) continue;
            char c = s[i];
            if (!(isDigit(c) || c == '+' || c == '(')
                    || (i > 0 && (s[i - 1] == '-' || s[i - 1] == '/' || s[i - 1] == '.' || s[i - 1] == '#'))) {
                continue;
            }
            int j = i, digits = 0, seps = 0;
            boolean paren = false, plus = c == '+';
            // "00" and a country code: the international prefix written in most of the world, read as '+'
            boolean intl = c == '0' && i + 2 < len && s[i + 1] == '0' && s[i + 2] >= '1' && s[i + 2] <= '9';
            if (plus) j++;
            while (j < len) {
                char d = s[j];
                if (isDigit(d)) digits++;
                else if (d == '(' || d == ')') { paren = true; seps++; }
                else if (d == ' ' || d == '-' || d == '.' || d == '/') {
                    if (j + 1 >= len || !(isDigit(s[j + 1]) || s[j + 1] == '(')) break;
                    seps++;
                } else break;
                j++;
            }
            int end = j;
            if (digits >= (intl ? 9 : 7) && digits <= (intl ? 17 : 15) && boundaryAfter(s, end, len) && plausiblePhone(s, i, end, digits, seps, paren, plus, intl, len)) {
                sink.add(i, end, DataCategory.PHONE);
            }
            next = Math.max(end, i + 1);
        }
    }

    private static boolean plausiblePhone(char[] s, int a, int b, int digits, int seps, boolean paren, boolean plus, boolean intl, int len) {
        if (dateShape(s, a, len, false) > 0) return false;
        if (near(s, a, NOT_PHONE_WORDS, NOT_PHONE_FIRST, 16) || partOfCode(s, a)) return false;
        if (dottedQuad(s, a, b)) return false;
        if (intl) {
            // as a '+' number, but the prefix is a weaker signal than '+': it needs phone-like formatting or a phone word
            if (!(paren || seps >= 2 || near(s, a, PHONE_WORDS, PHONE_FIRST, 30))) return false;
            try {
                return PHONES.isPossibleNumber(PHONES.parse("+" + new String(s, a, b - a).substring(2), "ZZ"));
            } catch (NumberParseException e) {
                return false;
            }
        }
        if (!plus && digits >= 13) return false; // card or account number
        boolean context = near(s, a, PHONE_WORDS, PHONE_FIRST, 30);
        if (!plus && !(paren || seps >= 2 || context)) return false;
        if (!plus && firstDigit(s, a, b) == '0' && digits < 10 && !context) return false;
        String text = new String(s, a, b - a);
        try {
            // '+' and a country code are the signal: a number of a possible length for that country is someone's
            // number whether or not its range is assigned (+44 7700 900123 lies in a range kept for fiction)
            if (plus) return PHONES.isPossibleNumber(PHONES.parse(text, "ZZ"));
            char first = firstDigit(s, a, b);
            String[] regions = first == '0' ? TRUNK_ZERO_REGIONS : NANP_REGIONS;
            for (String r : regions) {
                Phonenumber.PhoneNumber n = PHONES.parse(text, r);
                if (PHONES.isValidNumber(n)) return true;
            }
        } catch (NumberParseException e) {
            return false;
        }
        return false;
    }

    /** True when the run continues a code written in groups ({@code NL92 ABNA 0417...}). */
    private static boolean partOfCode(char[] s, int a) {
        if (a < 2 || s[a - 1] != ' ' || !isAsciiAlnum(s[a - 2])) return false;
        int p = a - 2, n = 0;
        boolean upper = false;
        while (p >= 0 && isAsciiAlnum(s[p])) {
            if (isUpper(s[p])) upper = true;
            else if (!isDigit(s[p])) return false;
            p--;
            n++;
        }
        return upper && n <= 4;
    }

    private static char firstDigit(char[] s, int a, int b) {
        for (int i = a; i < b; i++) if (isDigit(s[i])) return s[i];
        return 0;
    }

    private static boolean dottedQuad(char[] s, int a, int b) {
        int dots = 0;
        for (int i = a; i < b; i++) {
            char c = s[i];
            if (c == '.') dots++;
            else if (!isDigit(c)) return false;
        }
        return dots == 3;
    }

    // ---- dates of birth

    private static void birthDates(char[] s, int len, int[] starts, int nStarts, SpanSink sink) {
        int next = 0;
        for (int w = 0; w < nStarts; w++) {
            int i = starts[w];
            if (i < next) continue;
            int end = dateStartingAt(s, i, len);
            if (end < 0) continue;
            if (birthWordNear(s, i, end, len)) sink.add(i, end, DataCategory.DATE_OF_BIRTH);
            next = end;
        }
    }

    /** End of a numeric or written date starting at word start {@code i}, or -1. */
    private static int dateStartingAt(char[] s, int i, int len) {
        char c = s[i];
        if (!isDigit(c)) {
            // a word that is no month's beginning starts no date (what monthAt would find out, inline)
            if (!in(MONTH_FIRST, c) || i + 1 >= len) return -1;
            char second = lower(s[i + 1]);
            if (second < 'a' || second > 'z' || MONTHS_BY_PAIR[((c | 0x20) - 'a') * 26 + second - 'a'].length == 0) return -1;
        }
        int end = dateAt(s, i, len);
        return end >= 0 ? end : textualDateAt(s, i, len);
    }

    /** A date at {@code [i, end)} counts as a date of birth with a birth word before or after it. */
    private static boolean birthWordNear(char[] s, int i, int end, int len) {
        return near(s, i, BIRTH_WORDS, BIRTH_FIRST, 40) || after(s, end, len, BIRTH_WORDS, BIRTH_FIRST, 20);
    }

    /** End of a numeric date at {@code i} (1985-03-12, 12/03/1985, 12.03.1985), or -1; timestamps are not dates of birth. */
    static int dateAt(char[] s, int i, int len) { return dateShape(s, i, len, true); }

    /** End of a numeric date at {@code i}; with {@code strict}, one followed by a time of day does not count. */
    static int dateShape(char[] s, int i, int len, boolean strict) {
        if (!isDigit(s[i])) return -1;
        int n1 = digitRun(s, i, len);
        int p = i + n1;
        if (p >= len || !dateSep(s[p])) return -1;
        char sep = s[p];
        int n2 = digitRun(s, p + 1, len);
        int q = p + 1 + n2;
        if (n2 < 1 || n2 > 2 || q >= len || s[q] != sep) return -1;
        int n3 = digitRun(s, q + 1, len);
        int end = q + 1 + n3;
        int y, m, d;
        if (n1 == 4 && n3 >= 1 && n3 <= 2) {
            y = num(s, i, 4); m = num(s, p + 1, n2); d = num(s, q + 1, n3);
        } else if (n1 >= 1 && n1 <= 2 && n3 == 4) {
            y = num(s, q + 1, 4);
            int a = num(s, i, n1), b = num(s, p + 1, n2);
            if (a > 12) { d = a; m = b; } else { m = a <= 12 && b > 12 ? a : b; d = a <= 12 && b > 12 ? b : a; }
        } else {
            return -1;
        }
        if (y < 1900 || y > 2030 || m < 1 || m > 12 || d < 1 || d > 31) return -1;
        if (!strict) return end;
        if (end < len && (s[end] == 'T' || s[end] == ':' || isAsciiAlnum(s[end]))) return -1;
        if (end + 2 < len && s[end] == ' ' && isDigit(s[end + 1]) && isDigit(s[end + 2]) && end + 3 < len && s[end + 3] == ':') return -1;
        return end;
    }

    /** End of a date like {@code 12 March 1985} or {@code March 12, 1985} at {@code i}, or -1. */
    private static int textualDateAt(char[] s, int i, int len) {
        int p = i;
        if (isDigit(s[p])) {
            int n = digitRun(s, p, len);
            if (n > 2) return -1;
            p += n;
            if (p + 1 < len && (s[p] == 's' || s[p] == 'n' || s[p] == 'r' || s[p] == 't')) {
                while (p < len && letter(s[p])) p++; // 1st, 2nd, 3rd, 12th
            }
            if (p >= len || s[p] != ' ') return -1;
            int m = monthAt(s, p + 1, len);
            if (m < 0) return -1;
            p = m;
            if (p < len && s[p] == ',') p++;
            if (p >= len || s[p] != ' ') return -1;
            p++;
            if (!digitsAt(s, p, len, 4) || !boundaryAfter(s, p + 4, len)) return -1;
            int y = num(s, p, 4);
            return y >= 1900 && y <= 2030 ? p + 4 : -1;
        }
        int m = monthAt(s, p, len);
        if (m < 0 || m >= len || s[m] != ' ') return -1;
        p = m + 1;
        int n = digitRun(s, p, len);
        if (n < 1 || n > 2) return -1;
        p += n;
        while (p < len && letter(s[p])) p++;
        if (p < len && s[p] == ',') p++;
        if (p >= len || s[p] != ' ') return -1;
        p++;
        if (!digitsAt(s, p, len, 4) || !boundaryAfter(s, p + 4, len)) return -1;
        int y = num(s, p, 4);
        return y >= 1900 && y <= 2030 ? p + 4 : -1;
    }

    private static int monthAt(char[] s, int p, int len) {
        if (p + 1 >= len) return -1; // every month name has at least three letters
        char c = s[p];
        if (!in(MONTH_FIRST, c)) return -1;
        char second = lower(s[p + 1]);
        if (second < 'a' || second > 'z') return -1;
        for (char[] m : MONTHS_BY_PAIR[((c | 0x20) - 'a') * 26 + second - 'a']) {
            if (regionMatchesIgnoreCase(s, p, len, m)) {
                int e = p + m.length;
                if (e < len && s[e] == '.') e++;
                if (e >= len || !letter(s[e])) return e;
            }
        }
        return -1;
    }

    // ---- postal addresses

    private static void addresses(char[] s, int len, int[] starts, int nStarts, SpanSink sink) {
        int next = 0;
        for (int w = 0; w < nStarts; w++) {
            int i = starts[w];
            if (i < next) continue;
            int end = addressAt(s, i, len);
            if (end > i) {
                sink.add(i, end, DataCategory.POSTAL_ADDRESS);
                next = end;
            }
        }
    }

    /** End of a postal address starting at word start {@code i}, or -1. */
    private static int addressAt(char[] s, int i, int len) {
        char c = s[i];
        // every form starts with a digit, a capital or p (PO box); a capital that is no letter (Ⓐ) matches no form
        if (!(isDigit(c) || c == 'p' || (c < 128 ? c >= 'A' && c <= 'Z' : Character.isUpperCase(c)))) return -1;
        int end = -1;
        if (isDigit(c)) {
            end = numberFirstStreet(s, i, len);
            if (end < 0) end = usZip(s, i, len);
        } else if (Character.isUpperCase(c)) {
            end = germanicStreet(s, i, len);
            if (end < 0) end = romanceStreet(s, i, len);
            if (end < 0) end = ukPostcode(s, i, len);
            if (end < 0) end = poBox(s, i, len);
        } else if (c == 'P' || c == 'p') {
            end = poBox(s, i, len);
        }
        return end > i ? end : -1;
    }

    /** {@code 221B Baker Street}, {@code 1600 Pennsylvania Avenue}, {@code 12 rue de la Paix}. */
    private static int numberFirstStreet(char[] s, int i, int len) {
        int n = digitRun(s, i, len);
        if (n > 5) return -1;
        int p = i + n;
        if (p < len && letter(s[p]) && (p + 1 >= len || !letter(s[p + 1]))) p++;
        if (p < len && s[p] == ',') p++;
        if (p >= len || s[p] != ' ') return -1;
        p++;
        for (char[] w : ROMANCE_AFTER_NUMBER) {
            if (regionMatchesIgnoreCase(s, p, len, w) && p + w.length < len && s[p + w.length] == ' '
                    && p + w.length + 1 < len && letter(s[p + w.length + 1])) {
                return wordEnd(s, p + w.length + 1, len);
            }
        }
        int words = 0;
        while (p < len && words < 5) {
            if (!Character.isUpperCase(s[p])) return -1;
            int e = wordEnd(s, p, len);
            if (words > 0) {
                for (char[] suf : STREET_SUFFIXES) {
                    if (e - p == suf.length && regionMatchesIgnoreCase(s, p, len, suf)) {
                        if (e < len && s[e] == '.') e++;
                        return e;
                    }
                }
            }
            words++;
            if (e >= len || s[e] != ' ') return -1;
            p = e + 1;
        }
        return -1;
    }

    /** {@code Hauptstraße 5}, {@code Kerkstraat 12}. */
    private static int germanicStreet(char[] s, int i, int len) {
        int e = i;
        while (e < len && (letter(s[e]) || s[e] == '-' || s[e] == '.')) e++;
        boolean street = false;
        // every suffix ends in one of "e.gznt": a word ending otherwise is no street (most capitalised words)
        char last = e > i ? lower(s[e - 1]) : 0;
        if (last != 'e' && last != '.' && last != 'g' && last != 'z' && last != 'n' && last != 't') return -1;
        // a house number must follow: tested before the suffixes, which cost more (the answer is the same)
        if (e + 1 >= len || s[e] != ' ' || !isDigit(s[e + 1])) return -1;
        for (char[] g : GERMANIC_STREETS) {
            int st = e - g.length;
            if (st > i && regionMatchesIgnoreCase(s, st, len, g)) { street = true; break; }
        }
        if (!street || e + 1 >= len || s[e] != ' ' || !isDigit(s[e + 1])) return -1;
        int n = digitRun(s, e + 1, len);
        if (n > 4) return -1;
        int end = e + 1 + n;
        if (end < len && letter(s[end]) && (end + 1 >= len || !letter(s[end + 1]))) end++;
        return boundaryAfter(s, end, len) ? end : -1;
    }

    /** {@code Via Roma 12}, {@code Calle Mayor 5}. */
    private static int romanceStreet(char[] s, int i, int len) {
        if (!in(ROMANCE_FIRST, lower(s[i]))) return -1; // most capitalised words: no lead word begins so
        int e = wordEnd(s, i, len);
        boolean lead = false;
        for (char[] w : ROMANCE_BEFORE_NUMBER) if (e - i == w.length && regionMatchesIgnoreCase(s, i, len, w)) lead = true;
        if (!lead) return -1;
        int p = e;
        int words = 0;
        while (p < len && s[p] == ' ' && p + 1 < len && letter(s[p + 1]) && words < 4) {
            p = wordEnd(s, p + 1, len);
            words++;
        }
        if (words == 0) return -1;
        if (p < len && s[p] == ',') p++;
        if (p + 1 >= len || s[p] != ' ' || !isDigit(s[p + 1])) return -1;
        int n = digitRun(s, p + 1, len);
        int end = p + 1 + n;
        return n <= 4 && boundaryAfter(s, end, len) ? end : -1;
    }

    /** UK postcode {@code SW1A 1AA}. */
    private static int ukPostcode(char[] s, int i, int len) {
        int p = i;
        int letters = 0;
        while (p < len && isUpper(s[p]) && letters < 2) { p++; letters++; }
        if (letters == 0 || p >= len || !isDigit(s[p])) return -1;
        p++;
        if (p < len && (isDigit(s[p]) || isUpper(s[p]))) p++;
        if (p >= len || s[p] != ' ') return -1;
        p++;
        if (p + 3 > len || !isDigit(s[p]) || !isUpper(s[p + 1]) || !isUpper(s[p + 2])) return -1;
        return boundaryAfter(s, p + 3, len) ? p + 3 : -1;
    }

    /** {@code , CA 94103} (state code and ZIP) starting at the ZIP's state: called at the digit, looks back. */
    private static int usZip(char[] s, int i, int len) {
        if (i < 5 || !digitsAt(s, i, len, 5)) return -1;
        if (s[i - 1] != ' ' || !isUpper(s[i - 2]) || !isUpper(s[i - 3]) || s[i - 4] != ' ') return -1;
        if (s[i - 5] != ',') return -1;
        if (!usState(s[i - 3], s[i - 2])) return -1;
        int end = i + 5;
        if (end + 5 <= len && s[end] == '-' && digitsAt(s, end + 1, len, 4)) end += 5;
        return boundaryAfter(s, end, len) ? end : -1;
    }

    private static boolean usState(char a, char b) {
        for (int k = 0; k + 1 < US_STATES.length(); k += 3) {
            if (US_STATES.charAt(k) == a && US_STATES.charAt(k + 1) == b) return true;
        }
        return false;
    }

    private static final char[] P_O_BOX = "p.o. box ".toCharArray(), PO_BOX = "po box ".toCharArray();

    /** {@code PO Box 123}, {@code P.O. Box 123}. */
    private static int poBox(char[] s, int i, int len) {
        int p = -1;
        if (regionMatchesIgnoreCase(s, i, len, P_O_BOX)) p = i + 9;
        else if (regionMatchesIgnoreCase(s, i, len, PO_BOX)) p = i + 7;
        if (p < 0) return -1;
        int n = digitRun(s, p, len);
        return n >= 1 && n <= 6 && boundaryAfter(s, p + n, len) ? p + n : -1;
    }

    // ---- terms

    private static void terms(char[] s, int len, int[] starts, int nStarts, SpanSink sink) {
        for (int w = 0; w < nStarts; w++) {
            int i = starts[w];
            int t = termAt(s, i, len);
            if (t >= 0) sink.add(i, i + TERM_WORDS[t].length, TERM_CATEGORIES[t]);
        }
    }

    /** Index into TERMS of the (first listed) term at word start {@code i}, or -1. */
    private static int termAt(char[] s, int i, int len) {
        char first = lower(s[i]);
        if (first < 'a' || first > 'z') return -1;
        if (i + 2 >= len) return -1; // every term has at least three letters first
        char second = lower(s[i + 1]), third = lower(s[i + 2]);
        if (second < 'a' || second > 'z' || third < 'a' || third > 'z') return -1;
        int pair = (first - 'a') * 26 + (second - 'a');
        if ((TERMS_THIRD[pair] & (1 << (third - 'a'))) == 0) return -1;
        for (int ti : TERMS_BY_PAIR[pair]) {
            char[] term = TERM_WORDS[ti];
            if (!regionMatchesIgnoreCase(s, i, len, term)) continue;
            int e = i + term.length;
            if (e < len && alnum(s[e])) continue;
            char[] cancel = TERM_CANCELS[ti];
            if (cancel != null && precededBy(s, i, cancel)) continue;
            return ti;
        }
        return -1;
    }

    private static boolean precededBy(char[] s, int i, char[] word) {
        int p = i - 1;
        while (p >= 0 && s[p] == ' ') p--;
        int st = p - word.length + 1;
        return st >= 0 && regionMatchesIgnoreCase(s, st, p + 1, word) && (st == 0 || !letter(s[st - 1]));
    }

    // ---- small helpers

    /** True when one of {@code words} ends within {@code window} chars before {@code i}. */
    private static boolean near(char[] s, int i, char[][] words, long[] first, int window) {
        int from = Math.max(0, i - window);
        for (int p = from; p < i; p++) {
            if (!in(first, lower(s[p])) || (p > 0 && letter(s[p - 1]))) continue;
            for (char[] w : words) if (regionMatchesIgnoreCase(s, p, i, w)) return true;
        }
        return false;
    }

    private static boolean after(char[] s, int e, int len, char[][] words, long[] first, int window) {
        int to = Math.min(len, e + window);
        for (int p = e; p < to; p++) {
            if (!in(first, lower(s[p])) || (p > 0 && letter(s[p - 1]))) continue;
            for (char[] w : words) if (regionMatchesIgnoreCase(s, p, len, w)) return true;
        }
        return false;
    }

    /** ASCII chars as a 128-bit set, for {@link #in} (a table lookup where a String.indexOf per char was). */
    private static long[] charSet(String chars) {
        long[] set = new long[2];
        for (int i = 0; i < chars.length(); i++) {
            char c = chars.charAt(i);
            set[c >>> 6] |= 1L << c;
        }
        return set;
    }

    /** Month names' first letters, either case; letters a UK National Insurance number does not begin with. */
    private static final long[] MONTH_FIRST = charSet("jfmasondJFMASOND"), NINO_NOT_FIRST = charSet("DFIQUV"),
            NINO_NOT_SECOND = charSet("DFIOQUV");

    /** The first chars of {@code words} (each a lowercase ASCII char) as a 128-bit set. */
    private static long[] firstLetters(char[][] words) {
        long[] set = new long[2];
        for (char[] w : words) {
            char c = w[0];
            if (c >= 128 || Character.toLowerCase(c) != c) throw new IllegalStateException("word " + new String(w) + " must start with a lowercase ASCII char");
            set[c >>> 6] |= 1L << c;
        }
        return set;
    }

    /** True when {@code c} is in a set of {@link #firstLetters}; a word's first char matches only when this holds. */
    private static boolean in(long[] set, char c) { return c < 128 && (set[c >>> 6] & (1L << c)) != 0; }

    /** Character.toUpperCase with an ASCII fast path. */
    private static char upper(char c) {
        if (c < 128) return c >= 'a' && c <= 'z' ? (char) (c - 32) : c;
        return Character.toUpperCase(c);
    }

    /** Character.toLowerCase with an ASCII fast path. */
    private static char lower(char c) {
        if (c < 128) return c >= 'A' && c <= 'Z' ? (char) (c + 32) : c;
        return Character.toLowerCase(c);
    }

    /** The words as char arrays (compared without String.charAt's per-char coder test). */
    private static char[][] words(String... words) {
        char[][] out = new char[words.length][];
        for (int i = 0; i < words.length; i++) out[i] = words[i].toCharArray();
        return out;
    }

    private static boolean regionMatchesIgnoreCase(char[] s, int p, int limit, char[] w) {
        if (p < 0 || p + w.length > limit) return false;
        for (int k = 0; k < w.length; k++) {
            char a = s[p + k];
            char b = w[k];
            if (a != b && lower(a) != b) return false;
        }
        return true;
    }

    private static int wordEnd(char[] s, int p, int len) {
        while (p < len && (letter(s[p]) || s[p] == '\'' || s[p] == '-')) p++;
        return p;
    }

    private static int digitRun(char[] s, int p, int len) {
        int n = 0;
        while (p + n < len && isDigit(s[p + n])) n++;
        return n;
    }

    private static boolean digitsAt(char[] s, int p, int len, int n) {
        if (p < 0 || p + n > len) return false;
        for (int k = 0; k < n; k++) if (!isDigit(s[p + k])) return false;
        return p + n == len || !isDigit(s[p + n]);
    }

    private static int num(char[] s, int p, int n) {
        int v = 0;
        for (int k = 0; k < n; k++) v = v * 10 + (s[p + k] - '0');
        return v;
    }

    private static boolean sep(char c) { return c == '-' || c == ' '; }

    private static boolean dateSep(char c) { return c == '-' || c == '/' || c == '.'; }

    private static boolean boundaryBefore(char[] s, int i) { return i == 0 || !alnum(s[i - 1]); }

    private static boolean boundaryAfter(char[] s, int j, int len) { return j >= len || !alnum(s[j]); }

    private static boolean isDigit(char c) { return c >= '0' && c <= '9'; }

    /** Character.isLetterOrDigit with an ASCII fast path (the common case in tool arguments). */
    private static boolean alnum(char c) {
        if (c < 128) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        return Character.isLetterOrDigit(c);
    }

    private static boolean letter(char c) {
        if (c < 128) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        return Character.isLetter(c);
    }

    private static boolean isUpper(char c) { return c >= 'A' && c <= 'Z'; }

    private static boolean isHex(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

    private static boolean isAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

    private static boolean isAsciiAlnum(char c) { return isDigit(c) || isAsciiLetter(c); }
}
