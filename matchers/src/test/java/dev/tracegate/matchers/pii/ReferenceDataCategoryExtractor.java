package dev.tracegate.matchers.pii;

import com.google.i18n.phonenumbers.NumberParseException;
import com.google.i18n.phonenumbers.PhoneNumberUtil;
import com.google.i18n.phonenumbers.Phonenumber;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Test oracle: the extractor as it was before the scanning speed-ups (commit 6256de9), kept verbatim
 * so {@code ExtractorEquivalenceTest} can check that the faster one reports the same spans in the
 * same order. Payment cards were written anew since (runs holding several cards), as simply as they could be.
 *
 * Finds personal data in text with deterministic detectors (no model): e-mail addresses, phone
 * numbers (validated by libphonenumber), IBANs (mod-97 checksum and country length), payment cards
 * (Luhn and issuer ranges), national identifiers (US SSN, UK NINO, Spanish DNI/NIE, Canadian SIN),
 * dates of birth (a date near a birth word), postal addresses (street forms, UK postcodes, US
 * state and ZIP, PO boxes), IPv4/IPv6 addresses, and health and financial terms; and reads field
 * names as hints ({@code email}, {@code dob}, {@code iban}...). Thread-safe and stateless. Scanning
 * is linear in the text and allocates nothing unless a phone-number candidate reaches
 * libphonenumber. Precision and recall on the committed fixture set are in matchers/README.md.
 */
final class ReferenceDataCategoryExtractor {
    /** Characters of one text that are scanned. */
    public static final int MAX_SCAN = 65_536;

    private static final PhoneNumberUtil PHONES = PhoneNumberUtil.getInstance();
    private static final String[] PHONE_WORDS = {"phone", "tel", "call", "mobile", "cell", "fax", "contact", "ring", "whatsapp", "sms", "text me", "reach me"};
    private static final String[] BIRTH_WORDS = {"born", "birth", "dob", "d.o.b", "birthday", "birthdate", "geboren", "geb.", "née", "né le", "nacido", "nata", "nato"};
    private static final String[] NOT_PHONE_WORDS = {"isbn", "order", "invoice", "sku", "tracking", "ref", "version", "build", "serial"};
    private static final String[] VERSION_WORDS = {"version", "release", "build"};
    private static final String[] TRUNK_ZERO_REGIONS = {"GB", "DE", "FR", "NL", "IT", "AU"};
    private static final String[] NANP_REGIONS = {"US"};
    private static final String[] SSN_WORDS = {"ssn", "social security", "sin", "social insurance"};
    private static final String[] MONTHS = {"january", "february", "march", "april", "may", "june", "july", "august",
        "september", "october", "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept",
        "oct", "nov", "dec"};
    private static final String[] STREET_SUFFIXES = {"street", "st", "avenue", "ave", "road", "rd", "boulevard", "blvd",
        "lane", "ln", "drive", "dr", "court", "ct", "way", "place", "pl", "terrace", "close", "crescent", "square", "sq",
        "parkway", "pkwy", "highway", "hwy", "circle", "cir", "trail", "row", "gardens", "mews", "hill", "grove", "walk"};
    private static final String[] GERMANIC_STREETS = {"straße", "strasse", "str.", "gasse", "allee", "weg", "platz", "laan", "straat", "gracht"};
    private static final String[] ROMANCE_AFTER_NUMBER = {"rue", "avenue", "boulevard", "bd", "allée", "chemin", "impasse", "quai", "place"};
    private static final String[] ROMANCE_BEFORE_NUMBER = {"via", "viale", "piazza", "corso", "calle", "avenida", "plaza", "rua", "carrer", "paseo"};
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

    /** Indices into TERMS by the term's first letter (a..z). */
    private static final int[][] TERMS_BY_LETTER = new int[26][];
    /** Field hints as hashes of their letters read backwards, sorted, with their categories (null: blocker). */
    private static final long[] HINT_HASHES;
    private static final DataCategory[] HINT_CATEGORIES;

    static {
        for (int l = 0; l < 26; l++) {
            int count = 0;
            for (Object[] t : TERMS) if (((String) t[0]).charAt(0) == 'a' + l) count++;
            int[] idx = new int[count];
            int k = 0;
            for (int i = 0; i < TERMS.length; i++) if (((String) TERMS[i][0]).charAt(0) == 'a' + l) idx[k++] = i;
            TERMS_BY_LETTER[l] = idx;
        }
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

    /** The shared instance. */
    public static final ReferenceDataCategoryExtractor INSTANCE = new ReferenceDataCategoryExtractor();

    private ReferenceDataCategoryExtractor() {}

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
        scratch.clear();
        detect(text, scratch);
        return scratch.mask();
    }

    /** Reports every span of personal data in {@code text} to {@code sink}. */
    public void detect(CharSequence text, SpanSink sink) {
        if (text == null) return;
        int len = Math.min(text.length(), MAX_SCAN);
        if (len == 0) return;
        int digits = 0;
        boolean at = false, colon = false, letters = false;
        for (int i = 0; i < len; i++) {
            char c = text.charAt(i);
            if (c >= '0' && c <= '9') digits++;
            else if (c == '@') at = true;
            else if (c == ':') colon = true;
            else if (letter(c)) letters = true;
        }
        if (at) emails(text, len, sink);
        // each detector needs at least this many digits in the whole text
        if (digits >= 13) cards(text, len, sink);
        if (digits >= 4) ibans(text, len, sink);
        if (digits >= 6) nationalIds(text, len, sink);
        if (digits >= 4) ipv4(text, len, sink);
        if (digits >= 7) phones(text, len, sink);
        if (digits >= 4) birthDates(text, len, sink);
        if (digits >= 1) addresses(text, len, sink);
        if (colon) ipv6(text, len, sink);
        if (letters) terms(text, len, sink);
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
        for (int i = name.length() - 1; i >= 0 && letters < 24; i--) {
            char c = name.charAt(i);
            if (!alnum(c)) continue;
            h = (h ^ Character.toLowerCase(c)) * HINT_PRIME;
            letters++;
            if (!wordStart(name, i)) continue;
            int k = java.util.Arrays.binarySearch(HINT_HASHES, h);
            if (k >= 0) found = HINT_CATEGORIES[k]; // the longest matching trailing words win (blockers too)
        }
        return found;
    }

    private static boolean wordStart(CharSequence s, int i) {
        while (i < s.length() && !alnum(s.charAt(i))) i++;
        if (i == 0) return true;
        char prev = s.charAt(i - 1);
        char cur = s.charAt(i);
        if (!alnum(prev)) return true;
        return Character.isLowerCase(prev) && Character.isUpperCase(cur);
    }

    // ---- e-mail

    private static void emails(CharSequence s, int len, SpanSink sink) {
        int from = 0;
        for (int p = 0; p < len; p++) {
            if (s.charAt(p) != '@' || p < from) continue;
            int a = p;
            while (a > 0 && localChar(s.charAt(a - 1))) a--;
            while (a < p && s.charAt(a) == '.') a++;
            if (a == p) continue;
            int b = p + 1;
            while (b < len && domainChar(s.charAt(b))) b++;
            while (b > p + 1 && (s.charAt(b - 1) == '.' || s.charAt(b - 1) == '-')) b--;
            if (!validDomain(s, p + 1, b)) continue;
            sink.add(a, b, DataCategory.EMAIL);
            from = b;
        }
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
     * Runs of digit groups joined by single spaces or dashes: the whole run when it is a card; else, unless the run
     * follows a word with a digit (an IBAN's tail), every window of whole groups that is a card and written as one
     * (one group, or a first group of four digits) is a candidate, and the disjoint candidates covering the most
     * digits win (ties: earlier start, then longer window).
     */
    private static void cards(CharSequence s, int len, SpanSink sink) {
        int i = 0;
        while (i < len) {
            if (!isDigit(s.charAt(i)) || !boundaryBefore(s, i) || (i > 0 && (s.charAt(i - 1) == '+' || s.charAt(i - 1) == '-'))) {
                i++;
                continue;
            }
            List<int[]> groups = new ArrayList<>(); // {first char, one past the last}
            int from = i;
            while (true) {
                int to = from;
                while (to < len && isDigit(s.charAt(to))) to++;
                groups.add(new int[] {from, to});
                boolean joined = to + 1 < len && (s.charAt(to) == ' ' || s.charAt(to) == '-') && isDigit(s.charAt(to + 1));
                if (!joined) break;
                from = to + 1;
            }
            int end = groups.get(groups.size() - 1)[1];
            if (isCard(s, i, end, len)) {
                sink.add(i, end, DataCategory.PAYMENT_CARD);
            } else if (digitsIn(s, i, end) >= 13 && groups.size() > 1 && !followsWordWithDigit(s, i)) {
                for (int[] card : bestCards(s, len, groups)) sink.add(card[0], card[1], DataCategory.PAYMENT_CARD);
            }
            i = end;
        }
    }

    /** Every set of disjoint card windows of the run, best first as the class comment says; only the best is kept. */
    private static List<int[]> bestCards(CharSequence s, int len, List<int[]> groups) {
        int n = groups.size();
        List<List<int[]>> bestFrom = new ArrayList<>();
        for (int k = 0; k <= n; k++) bestFrom.add(List.of());
        for (int k = n - 1; k >= 0; k--) {
            List<int[]> best = bestFrom.get(k + 1); // no card starts at group k
            for (int e = k + 1; e <= n; e++) {
                int a = groups.get(k)[0], b = groups.get(e - 1)[1];
                boolean writtenAsCard = e - k == 1 || groups.get(k)[1] - groups.get(k)[0] == 4;
                if (!writtenAsCard || !isCard(s, a, b, len)) continue;
                List<int[]> withIt = new ArrayList<>();
                withIt.add(new int[] {a, b});
                withIt.addAll(bestFrom.get(e));
                if (better(s, withIt, best)) best = withIt;
            }
            bestFrom.set(k, best);
        }
        return bestFrom.get(0);
    }

    private static boolean better(CharSequence s, List<int[]> x, List<int[]> y) {
        int cx = 0, cy = 0;
        for (int[] w : x) cx += digitsIn(s, w[0], w[1]);
        for (int[] w : y) cy += digitsIn(s, w[0], w[1]);
        if (cx != cy) return cx > cy;
        for (int k = 0; k < Math.min(x.size(), y.size()); k++) {
            if (x.get(k)[0] != y.get(k)[0]) return x.get(k)[0] < y.get(k)[0];
            if (x.get(k)[1] != y.get(k)[1]) return x.get(k)[1] > y.get(k)[1];
        }
        return x.size() > y.size();
    }

    /** 13 to 19 digits in {@code s[a, b)}, not followed by a letter or digit, Luhn-valid, in an issuer's range. */
    private static boolean isCard(CharSequence s, int a, int b, int len) {
        StringBuilder digits = new StringBuilder();
        for (int k = a; k < b; k++) if (isDigit(s.charAt(k))) digits.append(s.charAt(k));
        int n = digits.length();
        return n >= 13 && n <= 19 && boundaryAfter(s, b, len) && luhn(s, a, b) && issuer(Long.parseLong(digits.substring(0, 6)), n);
    }

    private static int digitsIn(CharSequence s, int a, int b) {
        int n = 0;
        for (int k = a; k < b; k++) if (isDigit(s.charAt(k))) n++;
        return n;
    }

    private static boolean followsWordWithDigit(CharSequence s, int i) {
        if (i < 2 || s.charAt(i - 1) != ' ' || !alnum(s.charAt(i - 2))) return false;
        int k = i - 2;
        while (k > 0 && alnum(s.charAt(k - 1))) k--;
        for (int m = k; m <= i - 2; m++) if (isDigit(s.charAt(m))) return true;
        return false;
    }

    /** Luhn checksum over the digits of {@code s[a, b)}. */
    static boolean luhn(CharSequence s, int a, int b) {
        int sum = 0;
        boolean dbl = false;
        for (int i = b - 1; i >= a; i--) {
            char c = s.charAt(i);
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

    private static void ibans(CharSequence s, int len, SpanSink sink) {
        for (int i = 0; i + 4 <= len; i++) {
            char c0 = Character.toUpperCase(s.charAt(i)), c1 = Character.toUpperCase(s.charAt(i + 1));
            if (c0 < 'A' || c0 > 'Z' || c1 < 'A' || c1 > 'Z' || !isDigit(s.charAt(i + 2)) || !isDigit(s.charAt(i + 3))) continue;
            if (!boundaryBefore(s, i)) continue;
            int want = ibanLength(c0, c1);
            if (want < 0) continue;
            int j = i, n = 0;
            while (j < len && n < want) {
                char c = s.charAt(j);
                if (isAsciiAlnum(c)) {
                    n++;
                    j++;
                } else if (c == ' ' && n > 0 && j + 1 < len && isAsciiAlnum(s.charAt(j + 1))) {
                    j++;
                } else {
                    break;
                }
            }
            if (n == want && boundaryAfter(s, j, len) && mod97(s, i, j) == 1) {
                sink.add(i, j, DataCategory.IBAN);
                i = j - 1;
            }
        }
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
    static int mod97(CharSequence s, int a, int b) {
        int rem = 0;
        int seen;
        // pass 1: from the fifth alphanumeric character; pass 2: the first four
        for (int pass = 0; pass < 2; pass++) {
            seen = 0;
            for (int i = a; i < b; i++) {
                char c = s.charAt(i);
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

    private static void nationalIds(CharSequence s, int len, SpanSink sink) {
        for (int i = 0; i < len; i++) {
            if (!boundaryBefore(s, i)) continue;
            char c = s.charAt(i);
            int end;
            if (isDigit(c)) {
                if ((end = ssn(s, i, len)) > 0 || (end = sin(s, i, len)) > 0 || (end = dni(s, i, len)) > 0) {
                    sink.add(i, end, DataCategory.NATIONAL_ID);
                    i = end - 1;
                }
            } else if (c >= 'A' && c <= 'Z') {
                if ((end = nino(s, i, len)) > 0 || (end = nie(s, i, len)) > 0) {
                    sink.add(i, end, DataCategory.NATIONAL_ID);
                    i = end - 1;
                }
            }
        }
    }

    /** US SSN {@code 123-45-6789} (or spaced, or nine digits after an SSN word). */
    private static int ssn(CharSequence s, int i, int len) {
        int end;
        boolean grouped;
        if (digitsAt(s, i, len, 3) && i + 11 <= len && sep(s.charAt(i + 3)) && s.charAt(i + 3) == s.charAt(i + 6)
                && digitsAt(s, i + 4, len, 2) && digitsAt(s, i + 7, len, 4)) {
            end = i + 11;
            grouped = true;
        } else if (digitsAt(s, i, len, 9) && near(s, i, SSN_WORDS, 30)) {
            end = i + 9;
            grouped = false;
        } else {
            return -1;
        }
        if (!boundaryAfter(s, end, len) || (end < len && sep(s.charAt(end)) && end + 1 < len && isDigit(s.charAt(end + 1)))) return -1;
        int area = num(s, i, 3);
        int group = grouped ? num(s, i + 4, 2) : num(s, i + 3, 2);
        int serial = grouped ? num(s, i + 7, 4) : num(s, i + 5, 4);
        if (area == 0 || area == 666 || area >= 900 || group == 0 || serial == 0) return -1;
        return end;
    }

    /** Canadian SIN {@code 046 454 286}: three groups of three, Luhn-valid. */
    private static int sin(CharSequence s, int i, int len) {
        if (!(digitsAt(s, i, len, 3) && i + 11 <= len && sep(s.charAt(i + 3)) && s.charAt(i + 3) == s.charAt(i + 7)
                && digitsAt(s, i + 4, len, 3) && digitsAt(s, i + 8, len, 3))) return -1;
        int end = i + 11;
        if (!boundaryAfter(s, end, len) || (end < len && sep(s.charAt(end)))) return -1;
        char first = s.charAt(i);
        if (first == '0' || first == '8') return -1;
        return luhn(s, i, end) ? end : -1;
    }

    private static final String DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE";

    /** Spanish DNI {@code 12345678Z} with its check letter. */
    private static int dni(CharSequence s, int i, int len) {
        if (!digitsAt(s, i, len, 8)) return -1;
        int j = i + 8;
        if (j < len && (s.charAt(j) == '-' || s.charAt(j) == ' ')) j++;
        if (j >= len) return -1;
        char letter = s.charAt(j);
        int n = num(s, i, 8);
        if (letter != DNI_LETTERS.charAt(n % 23) || !boundaryAfter(s, j + 1, len)) return -1;
        return j + 1;
    }

    /** Spanish NIE {@code X1234567L}. */
    private static int nie(CharSequence s, int i, int len) {
        char p = s.charAt(i);
        if ((p != 'X' && p != 'Y' && p != 'Z') || !digitsAt(s, i + 1, len, 7)) return -1;
        int j = i + 8;
        if (j < len && s.charAt(j) == '-') j++;
        if (j >= len) return -1;
        int n = (p - 'X') * 10_000_000 + num(s, i + 1, 7);
        if (s.charAt(j) != DNI_LETTERS.charAt(n % 23) || !boundaryAfter(s, j + 1, len)) return -1;
        return j + 1;
    }

    /** UK National Insurance number {@code AB 12 34 56 C}. */
    private static int nino(CharSequence s, int i, int len) {
        if (i + 9 > len) return -1;
        char a = s.charAt(i), b = s.charAt(i + 1);
        if ("DFIQUV".indexOf(a) >= 0 || b < 'A' || b > 'Z' || "DFIOQUV".indexOf(b) >= 0) return -1;
        if ((a == 'B' && b == 'G') || (a == 'G' && b == 'B') || (a == 'N' && b == 'K') || (a == 'K' && b == 'N')
                || (a == 'T' && b == 'N') || (a == 'N' && b == 'T') || (a == 'Z' && b == 'Z')) return -1;
        int j = i + 2;
        for (int g = 0; g < 3; g++) {
            if (j < len && s.charAt(j) == ' ') j++;
            if (j + 2 > len || !isDigit(s.charAt(j)) || !isDigit(s.charAt(j + 1))) return -1;
            j += 2;
        }
        if (j < len && s.charAt(j) == ' ') j++;
        if (j >= len || s.charAt(j) < 'A' || s.charAt(j) > 'D' || !boundaryAfter(s, j + 1, len)) return -1;
        return j + 1;
    }

    // ---- IP addresses

    private static void ipv4(CharSequence s, int len, SpanSink sink) {
        for (int i = 0; i < len; i++) {
            if (!isDigit(s.charAt(i)) || !boundaryBefore(s, i) || (i > 0 && s.charAt(i - 1) == '.')) continue;
            int j = i;
            int parts = 0;
            boolean ok = true;
            while (parts < 4) {
                int k = j, v = 0;
                while (k < len && isDigit(s.charAt(k)) && k - j < 4) v = v * 10 + (s.charAt(k++) - '0');
                int n = k - j;
                if (n == 0 || n > 3 || v > 255 || (n > 1 && s.charAt(j) == '0')) { ok = false; break; }
                parts++;
                j = k;
                if (parts < 4) {
                    if (j < len && s.charAt(j) == '.') j++;
                    else { ok = false; break; }
                }
            }
            if (!ok || (j < len && (isAsciiAlnum(s.charAt(j)) || (s.charAt(j) == '.' && j + 1 < len && isDigit(s.charAt(j + 1)))))) {
                continue;
            }
            if (versionBefore(s, i)) continue;
            sink.add(i, j, DataCategory.IP_ADDRESS);
            i = j;
        }
    }

    private static boolean versionBefore(CharSequence s, int i) {
        if (i > 0 && (s.charAt(i - 1) == 'v' || s.charAt(i - 1) == 'V')) return true;
        return near(s, i, VERSION_WORDS, 12);
    }

    private static void ipv6(CharSequence s, int len, SpanSink sink) {
        for (int i = 0; i < len; i++) {
            char c = s.charAt(i);
            if (!(isHex(c) || c == ':') || (i > 0 && (isHex(s.charAt(i - 1)) || s.charAt(i - 1) == ':' || alnum(s.charAt(i - 1))))) continue;
            int j = i, groups = 0, colons = 0, doubles = 0, run = 0;
            boolean ok = true, letter = false;
            while (j < len) {
                char d = s.charAt(j);
                if (isHex(d)) {
                    if (++run > 4) { ok = false; break; }
                    if (!isDigit(d)) letter = true;
                } else if (d == ':') {
                    if (run > 0) groups++;
                    else if (j > i && s.charAt(j - 1) == ':') doubles++;
                    run = 0;
                    colons++;
                    if (j + 1 < len && s.charAt(j + 1) == ':' && j + 2 < len && s.charAt(j + 2) == ':') { ok = false; break; }
                } else {
                    break;
                }
                j++;
            }
            if (run > 0) groups++;
            if (!ok || (j < len && alnum(s.charAt(j)))) { i = j; continue; }
            // a trailing colon is punctuation, not part of the address
            int end = j;
            if (end > i + 1 && s.charAt(end - 1) == ':' && s.charAt(end - 2) != ':') { end--; colons--; }
            boolean full = doubles == 0 && groups == 8 && colons == 7;
            boolean compressed = doubles == 1 && groups <= 7 && groups >= 1 && colons >= 2 && (letter || groups >= 2 || s.charAt(i) == ':');
            if (full || compressed) {
                sink.add(i, end, DataCategory.IP_ADDRESS);
            }
            i = j;
        }
    }

    // ---- phone numbers

    private static void phones(CharSequence s, int len, SpanSink sink) {
        int i = 0;
        while (i < len) {
            char c = s.charAt(i);
            if (!(isDigit(c) || c == '+' || c == '(') || !boundaryBefore(s, i)
                    || (i > 0 && (s.charAt(i - 1) == '-' || s.charAt(i - 1) == '/' || s.charAt(i - 1) == '.' || s.charAt(i - 1) == '#'))) {
                i++;
                continue;
            }
            int j = i, digits = 0, seps = 0;
            boolean paren = false, plus = c == '+';
            // "00" and a country code: the international prefix written in most of the world, read as '+'
            boolean intl = c == '0' && i + 2 < len && s.charAt(i + 1) == '0' && s.charAt(i + 2) >= '1' && s.charAt(i + 2) <= '9';
            if (plus) j++;
            while (j < len) {
                char d = s.charAt(j);
                if (isDigit(d)) digits++;
                else if (d == '(' || d == ')') { paren = true; seps++; }
                else if (d == ' ' || d == '-' || d == '.' || d == '/') {
                    if (j + 1 >= len || !(isDigit(s.charAt(j + 1)) || s.charAt(j + 1) == '(')) break;
                    seps++;
                } else break;
                j++;
            }
            int end = j;
            if (digits >= (intl ? 9 : 7) && digits <= (intl ? 17 : 15) && boundaryAfter(s, end, len) && plausiblePhone(s, i, end, digits, seps, paren, plus, intl, len)) {
                sink.add(i, end, DataCategory.PHONE);
            }
            i = Math.max(end, i + 1);
        }
    }

    private static boolean plausiblePhone(CharSequence s, int a, int b, int digits, int seps, boolean paren, boolean plus, boolean intl, int len) {
        if (dateShape(s, a, len, false) > 0) return false;
        if (near(s, a, NOT_PHONE_WORDS, 16) || partOfCode(s, a)) return false;
        if (dottedQuad(s, a, b)) return false;
        if (intl) {
            // as a '+' number, but the prefix is a weaker signal than '+': it needs phone-like formatting or a phone word
            if (!(paren || seps >= 2 || near(s, a, PHONE_WORDS, 30))) return false;
            try {
                return PHONES.isPossibleNumber(PHONES.parse("+" + s.subSequence(a, b).toString().substring(2), "ZZ"));
            } catch (NumberParseException e) {
                return false;
            }
        }
        if (!plus && digits >= 13) return false; // card or account number
        boolean context = near(s, a, PHONE_WORDS, 30);
        if (!plus && !(paren || seps >= 2 || context)) return false;
        if (!plus && firstDigit(s, a, b) == '0' && digits < 10 && !context) return false;
        String text = s.subSequence(a, b).toString();
        try {
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
    private static boolean partOfCode(CharSequence s, int a) {
        if (a < 2 || s.charAt(a - 1) != ' ' || !isAsciiAlnum(s.charAt(a - 2))) return false;
        int p = a - 2, n = 0;
        boolean upper = false;
        while (p >= 0 && isAsciiAlnum(s.charAt(p))) {
            if (isUpper(s.charAt(p))) upper = true;
            else if (!isDigit(s.charAt(p))) return false;
            p--;
            n++;
        }
        return upper && n <= 4;
    }

    private static char firstDigit(CharSequence s, int a, int b) {
        for (int i = a; i < b; i++) if (isDigit(s.charAt(i))) return s.charAt(i);
        return 0;
    }

    private static boolean dottedQuad(CharSequence s, int a, int b) {
        int dots = 0;
        for (int i = a; i < b; i++) {
            char c = s.charAt(i);
            if (c == '.') dots++;
            else if (!isDigit(c)) return false;
        }
        return dots == 3;
    }

    // ---- dates of birth

    private static void birthDates(CharSequence s, int len, SpanSink sink) {
        for (int i = 0; i < len; i++) {
            if (!boundaryBefore(s, i)) continue;
            int end = dateAt(s, i, len);
            if (end < 0) end = textualDateAt(s, i, len);
            if (end < 0) continue;
            if (near(s, i, BIRTH_WORDS, 40) || after(s, end, len, BIRTH_WORDS, 20)) sink.add(i, end, DataCategory.DATE_OF_BIRTH);
            i = end - 1;
        }
    }

    /** End of a numeric date at {@code i} (1985-03-12, 12/03/1985, 12.03.1985), or -1; timestamps are not dates of birth. */
    static int dateAt(CharSequence s, int i, int len) { return dateShape(s, i, len, true); }

    /** End of a numeric date at {@code i}; with {@code strict}, one followed by a time of day does not count. */
    static int dateShape(CharSequence s, int i, int len, boolean strict) {
        if (!isDigit(s.charAt(i))) return -1;
        int n1 = digitRun(s, i, len);
        int p = i + n1;
        if (p >= len || !dateSep(s.charAt(p))) return -1;
        char sep = s.charAt(p);
        int n2 = digitRun(s, p + 1, len);
        int q = p + 1 + n2;
        if (n2 < 1 || n2 > 2 || q >= len || s.charAt(q) != sep) return -1;
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
        if (end < len && (s.charAt(end) == 'T' || s.charAt(end) == ':' || isAsciiAlnum(s.charAt(end)))) return -1;
        if (end + 2 < len && s.charAt(end) == ' ' && isDigit(s.charAt(end + 1)) && isDigit(s.charAt(end + 2)) && end + 3 < len && s.charAt(end + 3) == ':') return -1;
        return end;
    }

    /** End of a date like {@code 12 March 1985} or {@code March 12, 1985} at {@code i}, or -1. */
    private static int textualDateAt(CharSequence s, int i, int len) {
        int p = i;
        if (isDigit(s.charAt(p))) {
            int n = digitRun(s, p, len);
            if (n > 2) return -1;
            p += n;
            if (p + 1 < len && (s.charAt(p) == 's' || s.charAt(p) == 'n' || s.charAt(p) == 'r' || s.charAt(p) == 't')) {
                while (p < len && letter(s.charAt(p))) p++; // 1st, 2nd, 3rd, 12th
            }
            if (p >= len || s.charAt(p) != ' ') return -1;
            int m = monthAt(s, p + 1, len);
            if (m < 0) return -1;
            p = m;
            if (p < len && s.charAt(p) == ',') p++;
            if (p >= len || s.charAt(p) != ' ') return -1;
            p++;
            if (!digitsAt(s, p, len, 4) || !boundaryAfter(s, p + 4, len)) return -1;
            int y = num(s, p, 4);
            return y >= 1900 && y <= 2030 ? p + 4 : -1;
        }
        int m = monthAt(s, p, len);
        if (m < 0 || m >= len || s.charAt(m) != ' ') return -1;
        p = m + 1;
        int n = digitRun(s, p, len);
        if (n < 1 || n > 2) return -1;
        p += n;
        while (p < len && letter(s.charAt(p))) p++;
        if (p < len && s.charAt(p) == ',') p++;
        if (p >= len || s.charAt(p) != ' ') return -1;
        p++;
        if (!digitsAt(s, p, len, 4) || !boundaryAfter(s, p + 4, len)) return -1;
        int y = num(s, p, 4);
        return y >= 1900 && y <= 2030 ? p + 4 : -1;
    }

    private static int monthAt(CharSequence s, int p, int len) {
        if (p >= len || "jfmasondJFMASOND".indexOf(s.charAt(p)) < 0) return -1;
        for (String m : MONTHS) {
            if (regionMatchesIgnoreCase(s, p, len, m)) {
                int e = p + m.length();
                if (e < len && s.charAt(e) == '.') e++;
                if (e >= len || !letter(s.charAt(e))) return e;
            }
        }
        return -1;
    }

    // ---- postal addresses

    private static void addresses(CharSequence s, int len, SpanSink sink) {
        for (int i = 0; i < len; i++) {
            if (!boundaryBefore(s, i)) continue;
            char c = s.charAt(i);
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
            if (end > i) {
                sink.add(i, end, DataCategory.POSTAL_ADDRESS);
                i = end - 1;
            }
        }
    }

    /** {@code 221B Baker Street}, {@code 1600 Pennsylvania Avenue}, {@code 12 rue de la Paix}. */
    private static int numberFirstStreet(CharSequence s, int i, int len) {
        int n = digitRun(s, i, len);
        if (n > 5) return -1;
        int p = i + n;
        if (p < len && letter(s.charAt(p)) && (p + 1 >= len || !letter(s.charAt(p + 1)))) p++;
        if (p < len && s.charAt(p) == ',') p++;
        if (p >= len || s.charAt(p) != ' ') return -1;
        p++;
        for (String w : ROMANCE_AFTER_NUMBER) {
            if (regionMatchesIgnoreCase(s, p, len, w) && p + w.length() < len && s.charAt(p + w.length()) == ' '
                    && p + w.length() + 1 < len && letter(s.charAt(p + w.length() + 1))) {
                return wordEnd(s, p + w.length() + 1, len);
            }
        }
        int words = 0;
        while (p < len && words < 5) {
            if (!Character.isUpperCase(s.charAt(p))) return -1;
            int e = wordEnd(s, p, len);
            if (words > 0) {
                for (String suf : STREET_SUFFIXES) {
                    if (e - p == suf.length() && regionMatchesIgnoreCase(s, p, len, suf)) {
                        if (e < len && s.charAt(e) == '.') e++;
                        return e;
                    }
                }
            }
            words++;
            if (e >= len || s.charAt(e) != ' ') return -1;
            p = e + 1;
        }
        return -1;
    }

    /** {@code Hauptstraße 5}, {@code Kerkstraat 12}. */
    private static int germanicStreet(CharSequence s, int i, int len) {
        int e = i;
        while (e < len && (letter(s.charAt(e)) || s.charAt(e) == '-' || s.charAt(e) == '.')) e++;
        boolean street = false;
        for (String g : GERMANIC_STREETS) {
            int st = e - g.length();
            if (st > i && regionMatchesIgnoreCase(s, st, len, g)) { street = true; break; }
        }
        if (!street || e + 1 >= len || s.charAt(e) != ' ' || !isDigit(s.charAt(e + 1))) return -1;
        int n = digitRun(s, e + 1, len);
        if (n > 4) return -1;
        int end = e + 1 + n;
        if (end < len && letter(s.charAt(end)) && (end + 1 >= len || !letter(s.charAt(end + 1)))) end++;
        return boundaryAfter(s, end, len) ? end : -1;
    }

    /** {@code Via Roma 12}, {@code Calle Mayor 5}. */
    private static int romanceStreet(CharSequence s, int i, int len) {
        int e = wordEnd(s, i, len);
        boolean lead = false;
        for (String w : ROMANCE_BEFORE_NUMBER) if (e - i == w.length() && regionMatchesIgnoreCase(s, i, len, w)) lead = true;
        if (!lead) return -1;
        int p = e;
        int words = 0;
        while (p < len && s.charAt(p) == ' ' && p + 1 < len && letter(s.charAt(p + 1)) && words < 4) {
            p = wordEnd(s, p + 1, len);
            words++;
        }
        if (words == 0) return -1;
        if (p < len && s.charAt(p) == ',') p++;
        if (p + 1 >= len || s.charAt(p) != ' ' || !isDigit(s.charAt(p + 1))) return -1;
        int n = digitRun(s, p + 1, len);
        int end = p + 1 + n;
        return n <= 4 && boundaryAfter(s, end, len) ? end : -1;
    }

    /** UK postcode {@code SW1A 1AA}. */
    private static int ukPostcode(CharSequence s, int i, int len) {
        int p = i;
        int letters = 0;
        while (p < len && isUpper(s.charAt(p)) && letters < 2) { p++; letters++; }
        if (letters == 0 || p >= len || !isDigit(s.charAt(p))) return -1;
        p++;
        if (p < len && (isDigit(s.charAt(p)) || isUpper(s.charAt(p)))) p++;
        if (p >= len || s.charAt(p) != ' ') return -1;
        p++;
        if (p + 3 > len || !isDigit(s.charAt(p)) || !isUpper(s.charAt(p + 1)) || !isUpper(s.charAt(p + 2))) return -1;
        return boundaryAfter(s, p + 3, len) ? p + 3 : -1;
    }

    /** {@code , CA 94103} (state code and ZIP) starting at the ZIP's state: called at the digit, looks back. */
    private static int usZip(CharSequence s, int i, int len) {
        if (i < 5 || !digitsAt(s, i, len, 5)) return -1;
        if (s.charAt(i - 1) != ' ' || !isUpper(s.charAt(i - 2)) || !isUpper(s.charAt(i - 3)) || s.charAt(i - 4) != ' ') return -1;
        if (s.charAt(i - 5) != ',') return -1;
        if (!usState(s.charAt(i - 3), s.charAt(i - 2))) return -1;
        int end = i + 5;
        if (end + 5 <= len && s.charAt(end) == '-' && digitsAt(s, end + 1, len, 4)) end += 5;
        return boundaryAfter(s, end, len) ? end : -1;
    }

    private static boolean usState(char a, char b) {
        for (int k = 0; k + 1 < US_STATES.length(); k += 3) {
            if (US_STATES.charAt(k) == a && US_STATES.charAt(k + 1) == b) return true;
        }
        return false;
    }

    /** {@code PO Box 123}, {@code P.O. Box 123}. */
    private static int poBox(CharSequence s, int i, int len) {
        int p = -1;
        if (regionMatchesIgnoreCase(s, i, len, "p.o. box ")) p = i + 9;
        else if (regionMatchesIgnoreCase(s, i, len, "po box ")) p = i + 7;
        if (p < 0) return -1;
        int n = digitRun(s, p, len);
        return n >= 1 && n <= 6 && boundaryAfter(s, p + n, len) ? p + n : -1;
    }

    // ---- terms

    private static void terms(CharSequence s, int len, SpanSink sink) {
        for (int i = 0; i < len; i++) {
            char first = Character.toLowerCase(s.charAt(i));
            if (first < 'a' || first > 'z' || (i > 0 && alnum(s.charAt(i - 1)))) continue;
            for (int ti : TERMS_BY_LETTER[first - 'a']) {
                Object[] t = TERMS[ti];
                String term = (String) t[0];
                if (!regionMatchesIgnoreCase(s, i, len, term)) continue;
                int e = i + term.length();
                if (e < len && alnum(s.charAt(e))) continue;
                String cancel = (String) t[2];
                if (cancel != null && precededBy(s, i, cancel)) continue;
                sink.add(i, e, (DataCategory) t[1]);
                break;
            }
        }
    }

    private static boolean precededBy(CharSequence s, int i, String word) {
        int p = i - 1;
        while (p >= 0 && s.charAt(p) == ' ') p--;
        int st = p - word.length() + 1;
        return st >= 0 && regionMatchesIgnoreCase(s, st, p + 1, word) && (st == 0 || !letter(s.charAt(st - 1)));
    }

    // ---- small helpers

    /** True when one of {@code words} ends within {@code window} chars before {@code i}. */
    private static boolean near(CharSequence s, int i, String[] words, int window) {
        int from = Math.max(0, i - window);
        for (int p = from; p < i; p++) {
            if (p > 0 && letter(s.charAt(p - 1))) continue;
            for (String w : words) if (regionMatchesIgnoreCase(s, p, i, w)) return true;
        }
        return false;
    }

    private static boolean after(CharSequence s, int e, int len, String[] words, int window) {
        int to = Math.min(len, e + window);
        for (int p = e; p < to; p++) {
            if (p > 0 && letter(s.charAt(p - 1))) continue;
            for (String w : words) if (regionMatchesIgnoreCase(s, p, len, w)) return true;
        }
        return false;
    }

    private static boolean regionMatchesIgnoreCase(CharSequence s, int p, int limit, String w) {
        if (p < 0 || p + w.length() > limit) return false;
        for (int k = 0; k < w.length(); k++) {
            char a = s.charAt(p + k);
            char b = w.charAt(k);
            if (a != b && Character.toLowerCase(a) != b) return false;
        }
        return true;
    }

    private static int wordEnd(CharSequence s, int p, int len) {
        while (p < len && (letter(s.charAt(p)) || s.charAt(p) == '\'' || s.charAt(p) == '-')) p++;
        return p;
    }

    private static int digitRun(CharSequence s, int p, int len) {
        int n = 0;
        while (p + n < len && isDigit(s.charAt(p + n))) n++;
        return n;
    }

    private static boolean digitsAt(CharSequence s, int p, int len, int n) {
        if (p < 0 || p + n > len) return false;
        for (int k = 0; k < n; k++) if (!isDigit(s.charAt(p + k))) return false;
        return p + n == len || !isDigit(s.charAt(p + n));
    }

    private static int num(CharSequence s, int p, int n) {
        int v = 0;
        for (int k = 0; k < n; k++) v = v * 10 + (s.charAt(p + k) - '0');
        return v;
    }

    private static boolean sep(char c) { return c == '-' || c == ' '; }

    private static boolean dateSep(char c) { return c == '-' || c == '/' || c == '.'; }

    private static boolean boundaryBefore(CharSequence s, int i) { return i == 0 || !alnum(s.charAt(i - 1)); }

    private static boolean boundaryAfter(CharSequence s, int j, int len) { return j >= len || !alnum(s.charAt(j)); }

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
