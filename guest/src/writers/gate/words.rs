//! The words the gate weighs, in the six languages of the recall set (en, zh, ja, es, de, fr):
//! cues with their weights, the words that start a request, and acknowledgements. Cues are
//! matched in the lower-cased message, at the start of a word for spaced scripts.

use super::Cue;

/// Words that announce a lesson kept for later, in any of the six languages.
#[rustfmt::skip]
pub const LASTING: &[Cue] = &[
    // English
    ("remember", 3), ("from now on", 3), ("going forward", 3), ("in the future", 3),
    ("in future", 3), ("next time", 3), ("keep in mind", 3), ("keep that in mind", 3),
    ("keep this in mind", 3), ("bear in mind", 3), ("don't forget", 2), ("for the record", 3),
    ("fyi", 3), ("heads up", 3), ("for context", 3), ("note that", 2), ("by the way", 2),
    ("btw", 2),
    // German
    ("merk dir", 3), ("merke dir", 3), ("ab sofort", 3), ("ab jetzt", 3), ("künftig", 3),
    ("in zukunft", 3), ("für die zukunft", 3), ("denk dran", 3), ("nicht vergessen", 3),
    ("grundsätzlich", 2), ("generell", 2), ("zur info", 3), ("übrigens", 2), ("nur damit du", 3),
    // French
    ("retiens", 3), ("à retenir", 3), ("pour la suite", 3), ("souviens-toi", 3),
    ("rappelle-toi", 3), ("désormais", 3), ("dorénavant", 3), ("à l'avenir", 3),
    ("à partir de maintenant", 3), ("prochaines fois", 3), ("la prochaine fois", 3),
    ("n'oublie pas", 3), ("garde en tête", 3), ("pour info", 3), ("sache que", 3), ("à savoir", 2),
    ("au fait", 2),
    // Chinese
    ("记住", 3), ("记一下", 3), ("记下", 3), ("以后", 3), ("今后", 3), ("从现在开始", 3), ("往后", 3), ("下次", 3),
    ("别忘了", 3), ("顺便说", 3), ("说一下", 2), ("注意", 2),
    // Japanese
    ("覚えて", 3), ("覚えと", 3), ("メモっ", 3), ("メモして", 3), ("今後", 3), ("これから", 3), ("次から", 3),
    ("忘れないで", 3), ("ちなみに", 3), ("念のため", 2), ("必ず", 2),
    // Spanish
    ("recuerda", 3), ("acuérdate", 3), ("no olvides", 3), ("ten en cuenta", 3),
    ("tenlo en cuenta", 3), ("de ahora en adelante", 3), ("a partir de ahora", 3),
    ("en adelante", 3), ("la próxima vez", 3), ("por cierto", 3), ("para que lo sepas", 3),
    ("ojo", 2),
    // Habits: what to do whenever something happens.
    ("whenever", 3), ("when you", 3), ("wenn du", 3), ("quand tu", 3), ("cuando", 3), ("的时候", 2),
    ("ときは", 2), ("場合は", 2), ("そのつもりで", 2),
    // Rules: what must or cannot be.
    ("must", 2), ("has to", 2), ("have to", 2), ("muss", 2), ("müssen", 2), ("doit", 2),
    ("doivent", 2), ("必须", 2), ("tiene que", 2), ("hay que", 2),
];

/// A preference about how to work, and habits (always, never).
#[rustfmt::skip]
pub const PREFERENCE: &[Cue] = &[
    ("i prefer", 3), ("i'd prefer", 3), ("i'd rather", 3), ("i like", 2), ("i don't like", 3),
    ("i hate", 3), ("i find", 2), ("me resulta", 2), ("i want you to", 2), ("stop adding", 3),
    ("please stop", 3), ("pls stop", 3), ("please don't", 2), ("don't ever", 3), ("always", 2),
    ("never", 2), ("every time", 2), ("annoys me", 3), ("drives me", 3), ("jedes mal", 2),
    ("nervt", 3), ("à chaque fois", 2), ("m'énerve", 3), ("cada vez", 2), ("me molesta", 3),
    ("每次", 2), ("不用", 1), ("难受", 2), ("毎回", 2), ("嫌", 2), ("ich mag", 3), ("ich mags", 3),
    ("mag ich", 3), ("ist mir lieber", 3), ("sind mir lieber", 3), ("mir ist lieber", 3),
    ("mir sind", 2), ("lieber", 2), ("bitte keine", 2), ("bitte nie", 3), ("immer", 2),
    ("niemals", 3), ("je préfère", 3), ("j'aime", 2), ("j'ai horreur", 3), ("je déteste", 3),
    ("évite", 2), ("toujours", 2), ("jamais", 2), ("arrête de", 3), ("我喜欢", 3), ("我更喜欢", 3),
    ("我习惯", 3), ("不喜欢", 3), ("别给我", 3), ("不要给我", 3), ("尽量", 2), ("一律", 3), ("统一", 2), ("总是", 2),
    ("好き", 2), ("嬉しい", 2), ("助かる", 2), ("ほうがいい", 2), ("方がいい", 2), ("苦手", 2), ("いつも", 2),
    ("prefiero", 3), ("me gusta", 2), ("no me gusta", 3), ("odio", 3), ("no hace falta que me", 3),
    ("evita", 2), ("siempre", 2), ("nunca", 2),
];

/// A decision taken.
#[rustfmt::skip]
pub const DECISION: &[Cue] = &[
    ("we're going with", 3), ("we are going with", 3), ("let's go with", 3), ("we decided", 3),
    ("we've decided", 3), ("decided", 2), ("standardize", 3), ("standardise", 3), ("we'll use", 3),
    ("we settled", 3), ("we're moving to", 3), ("we're switching", 3), ("we chose", 3),
    ("wir nehmen", 3), ("entschieden", 3), ("beschlossen", 3), ("wir bleiben bei", 3),
    ("wir wechseln", 3), ("wir steigen", 3), ("setzen auf", 3), ("on passe sur", 3),
    ("on part sur", 3), ("acté", 3), ("décidé", 3), ("on reste sur", 3), ("on garde", 2),
    ("on a choisi", 3), ("定了", 3), ("决定", 3), ("就用", 3), ("不考虑", 3), ("改用", 3), ("讨论完", 3),
    ("ことになった", 3), ("決めた", 3), ("決定", 3), ("統一", 3), ("採用", 3), ("方針", 3), ("hemos decidido", 3),
    ("decidido", 3), ("vamos con", 3), ("nos quedamos con", 3), ("usaremos", 3), ("migrar de", 3),
    ("pasamos a", 3),
];

/// A fact about the user.
#[rustfmt::skip]
pub const USER: &[Cue] = &[
    ("i'm a ", 3), ("i am a ", 3), ("i'm mostly", 3), ("i'm new to", 3), ("new to", 2),
    ("i only", 3), ("i work", 3), ("i own", 3), ("i mostly", 3), ("i'm the only", 3),
    ("i'm not", 2), ("i don't have", 2), ("my background", 3), ("ich bin", 3), ("ich komm", 3),
    ("ich hab keine", 3), ("ich habe keine", 3), ("kurz zu mir", 3), ("ich arbeite", 3),
    ("je suis", 3), ("je découvre", 3), ("je bosse", 3), ("je travaille", 3), ("je n'ai pas", 2),
    ("我是", 3), ("我平时", 3), ("我主要", 3), ("不太熟", 3), ("刚入门", 3), ("我只", 3), ("自分", 3), ("普段", 3),
    ("初めて", 3), ("私は", 3), ("僕は", 3), ("俺は", 3), ("soy ", 3), ("trabajo en", 3),
    ("trabajo con", 3), ("vengo de", 3), ("no sé nada", 3),
];

/// A fact about the project or where it runs: what "we" and "our" things are.
#[rustfmt::skip]
pub const PROJECT: &[Cue] = &[
    ("not how we", 3), ("in this repo", 2), ("our ", 2), ("we ", 1), ("only bugfixes", 3),
    ("freeze", 3), ("production", 1), ("prod ", 1), ("staging", 1), ("the ci ", 1),
    ("has to fit", 3), ("have to fit", 3), ("bei uns", 3), ("unser", 2), ("wir ", 1), ("prod", 1),
    ("chez nous", 3), ("notre ", 2), ("nos ", 1), ("on ne ", 2), ("uniquement", 2), ("我们", 2),
    ("咱们", 2), ("只是", 1), ("うちは", 3), ("うちの", 3), ("このリポジトリ", 3), ("前提", 3), ("本番", 2),
    ("フリーズ", 3), ("禁止", 3), ("en este repo", 3), ("nuestro", 2), ("nuestra", 2), ("producción", 2),
    ("no se pueden", 2), ("tiene que caber", 3),
];

/// A pointer to where something is.
#[rustfmt::skip]
pub const POINTER: &[Cue] = &[
    ("http://", 3), ("https://", 3), ("s3://", 3), (".internal", 3), ("intern/", 3), ("corp.", 3),
    ("confluence", 3), ("notion", 3), ("jira", 3), ("linear", 2), ("figma", 3), ("grafana", 3),
    ("kibana", 3), ("datadog", 3), ("sentry", 3), ("wiki", 3), ("runbook", 3), ("dashboard", 2),
    ("yapi", 3), ("slack", 2), ("tracked in", 3), ("lives in", 3), ("reference manual", 3),
];

/// The agent was wrong about the world (not about which line was meant).
#[rustfmt::skip]
pub const CORRECTION: &[Cue] = &[
    ("that's wrong", 3), ("that's not", 2), ("wrong", 2), ("actually", 2), ("falsch", 3),
    ("stimmt so nicht", 3), ("stimmt nicht", 3), ("c'est faux", 3), ("pas besoin", 2),
    ("non, ", 1), ("不对", 2), ("理解错", 3), ("写反", 3), ("错了", 3), ("違います", 3), ("間違", 3),
    ("じゃなくて", 2), ("ではなく", 2), ("así no", 3), ("que no", 2), ("no es", 1), ("no, ", 1),
    ("nein", 1), ("already", 1), ("bereits", 1), ("déjà", 1), ("已经", 1), ("不是", 1), ("别搞混", 3),
];

/// The marks of a turn that only asks, reports or points at a place in the code.
#[rustfmt::skip]
pub const PASSING: &[Cue] = &[
    ("do you remember", -4), ("remember how", -3), ("还记得", -4), ("覚えてる", -4), ("te acuerdas", -4),
    ("tu te souviens", -4), ("weißt du noch", -4), ("error[", -3), ("traceback", -3),
    ("typeerror", -3), ("npm err!", -3), ("failed ", -2), ("exception", -2), ("assert", -2),
    ("line 4", -1), ("行目", -3), ("第 ", -2), ("línea", -3), ("zeile", -3), ("ligne", -3),
    ("never mind", -3), ("forget it", -3), ("vergiss es", -3), ("olvídalo", -3), ("算了", -3),
    ("やっぱりいいや", -3), ("when you're done", -3), ("wenn du fertig bist", -3),
    ("quand tu as fini", -3), ("cuando termines", -3), ("laisse tomber", -3),
    ("ausnahmsweise", -3), ("this time", -3), ("for now", -2), ("这次", -3), ("以后再说", -4),
    ("回头再说", -4), ("また今度", -3), ("más adelante", -3), ("今回", -2), ("esta vez", -3),
    ("cette fois", -3), ("diesmal", -3),
];

/// A report of how the current task is going, and words that scope what is said to this task
/// only: no lesson for later.
#[rustfmt::skip]
pub const NOW_ONLY: &[Cue] = &[
    ("didn't work", -3), ("doesn't work", -3), ("not working", -3), ("still ", -2),
    ("same error", -3), ("failing", -2), ("fails", -2), ("crash", -2), ("is red", -3),
    ("before you finish", -3), ("for this pr", -3), ("in this pr", -3), ("yet", -2),
    ("funktioniert nicht", -3), ("geht nicht", -3), ("immer noch", -4), ("noch nicht", -2),
    ("ist rot", -3), ("für diesen pr", -3), ("am ende", -2), ("ne marche pas", -3),
    ("toujours pas", -4), ("plante", -2), ("est rouge", -3), ("pour cette pr", -3),
    ("avant de finir", -3), ("pas encore", -2), ("no funciona", -3), ("falla", -2),
    ("se cierra", -3), ("en este pr", -3), ("todavía", -2), ("报错", -3), ("挂了", -3), ("老是挂", -3),
    ("闪退", -3), ("失败", -2), ("不行", -2), ("落ちる", -3), ("落ちて", -3), ("エラー", -2), ("動かない", -3),
    ("文字化け", -3), ("まだ", -2), ("元に戻", -3), ("nan", -2), ("あとで", -2), ("今度", -2), ("ab hier", -2),
    ("erstmal", -2), ("pour l'instant", -2), ("por ahora", -2), ("can wait", -3),
    ("kann warten", -3), ("peut attendre", -3), ("puede esperar", -3), ("再说", -3), ("i meant", -3),
    ("我说的是", -3), ("me refería", -3), ("ich meinte", -3), ("je voulais dire", -3),
    ("don't understand", -2), ("versteh nicht", -2), ("comprends pas", -2), ("no entiendo", -2),
    ("不明白", -2), ("aquí", -2), ("ici ", -2), (" here", -1), ("这里", -2), ("ここは", -2),
];

/// Words that start a request to do something now, after a "please" or "can you".
#[rustfmt::skip]
pub const DO_NOW: &[&str] = &[
    // English
    "fix", "add", "write", "refactor", "run", "rerun", "make", "update", "bump", "remove",
    "delete", "rename", "explain", "show", "create", "implement", "use", "change", "move", "split",
    "convert", "generate", "check", "look", "try", "undo", "revert", "merge", "commit", "push",
    "install", "set", "put", "give", "list", "open", "read", "test", "debug", "clean", "format",
    "replace", "migrate", "build", "deploy", "continue", "go", "do", "keep", "drop", "tidy",
    "wire", "port", "draft", "summarize", "summarise", "let's", "remember", "denk", "n'oublie",
    "acuérdate", "recuerda",
    // German
    "mach", "bau", "schreib", "füg", "lösch", "änder", "benenn", "zerleg", "erstell", "zeig",
    "erklär", "lass", "nimm", "schau", "prüf", "räum", "setz", "verschieb", "ersetz", "führ",
    "update", "pass", "hol", "kannst", "könntest",
    // French
    "ajoute", "écris", "corrige", "supprime", "retire", "renomme", "découpe", "génère", "explique",
    "montre", "lance", "relance", "passe", "fais", "crée", "mets", "change", "modifie", "monte",
    "remplace", "vérifie", "regarde", "nettoie", "installe", "déplace", "peux-tu", "tu peux",
    "adapte",
    // Spanish
    "añade", "agrega", "escribe", "arregla", "borra", "elimina", "quita", "renombra", "separa",
    "genera", "explica", "muestra", "lanza", "vuelve", "haz", "hazme", "crea", "pon", "cambia",
    "modifica", "sube", "reemplaza", "revisa", "mira", "prueba", "limpia", "instala", "mueve",
    "usa", "puedes", "podrías", "deshaz",
    // Chinese
    "帮我", "请", "把", "给", "再", "先", "加", "改", "写", "删", "跑", "修", "看看", "看下", "生成", "解释", "重构",
    "升级", "拆", "去掉", "记得", "别忘了",
];

/// Chinese requests often name their verb mid-sentence: these mark one anywhere.
pub const DO_NOW_ANYWHERE: &[&str] = &["帮我", "一下", "加个", "改成", "升到", "帮忙"];

/// A word of acknowledgement or greeting that opens a short sentence.
#[rustfmt::skip]
pub const ACK: &[&str] = &[
    "hi", "hello", "hey", "morning", "thanks", "thank you", "ok", "okay", "cool", "great", "nice",
    "perfect", "lgtm", "looks good", "sounds good", "yes", "yep", "sure", "moin", "hallo", "danke",
    "super", "prima", "passt", "sieht gut aus", "salut", "bonjour", "merci", "nickel", "parfait",
    "top", "d'accord", "vale", "perfecto", "gracias", "hola", "buenas", "genial", "好的", "谢谢",
    "辛苦了", "可以", "在吗", "ありがとう", "助かりました", "おはよう", "いいね", "了解", "うん",
];

/// Japanese requests end their sentence rather than start it.
#[rustfmt::skip]
pub const DO_NOW_ENDINGS: &[&str] = &[
    "て", "てください", "してください", "といて", "ておいて", "して", "ほしい", "しよう", "てね", "作って", "回して", "直して", "見せて",
];
