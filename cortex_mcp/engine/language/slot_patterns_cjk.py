"""The Chinese and Japanese slot patterns: name, home, workplace, role, answer language and
register, tools, family and pets by name, allergies, diet, units, birthdays (as data)."""

from cortex_mcp.engine.language import subjects
from cortex_mcp.engine.language.slot_words import (
    LANGUAGE_NAMES,
    RELATIONS,
    TOOL_NAMES,
    SlotPattern,
    alternatives,
)
from cortex_mcp.engine.language.slot_words import slot_patterns as _p

_JA_RELATIONS = ("娘", "息子", "妻", "夫", "母", "父", "兄", "弟", "姉", "妹", "上司")
_REL_ZH = alternatives(k for k in RELATIONS if not k.isascii() and k not in _JA_RELATIONS)
_REL_JA = alternatives(_JA_RELATIONS)
_PET_ZH = "猫咪|小猫|狗狗|小狗|兔子|鹦鹉|仓鼠|乌龟|柯基|金毛|泰迪|柴犬|金鱼|猫|狗"
_PET_JA = "トイプードル|柴犬|ネコ|イヌ|うさぎ|猫|犬"
_WHO_ZH = (
    rf"(?P<who>(?:我的?)?(?:{subjects.ZH_RELATIONS})|(?:我的?)?(?:{subjects.ZH_GROUPS})"
    rf"(?:{subjects.ZH_NAME}))"
)
_LATIN_PHRASE = r"[A-Za-z][A-Za-z0-9'.&-]*(?: [A-Za-z][A-Za-z0-9'.&-]*){0,3}"
"""A name in Latin letters inside a Chinese or Japanese clause, spaces and all: 我住在New York。
read "New"."""
_CJK_VALUE = rf"(?P<v>{_LATIN_PHRASE}|[^\s，。,.!！？?；;、：:「」]{{1,16}}?)"
_CJK_END = r"(?=[\s，。,.!！？?；;、]|了|啦|呢|$)"
_ZH_WHEN = (
    r"(?:上个?月|上周|上星期|上礼拜|去年|前年|今年|年初|最近|近来|前几天|前些天|前阵子|前段时间|"
    r"昨天|前天|刚刚|刚才|这个月|本月|这周|今天)?"
)
"""When a change happened, said between 我 and the verb: 我上个月搬到杭州了 (never a time to
come: 我下个月搬到杭州 is a plan)."""
_ZH_GENERIC_PLACE = (
    r"(?!(?:家|家里|公司|这里|那里|这边|那边|单位|外面|网上|线上|学校)(?:做|当|担任))"
)
"""Where one does a job that names no employer: 我在家做开发."""
_ZH_SIBLINGS = r"(?P<rel>儿子|女儿|哥哥|弟弟|姐姐|妹妹)"
_NOT_IN_A_NAME = r"(?![都也很在了的岁我她他们是有没想要会个和跟与])"
_ZH_GIVEN = rf"(?:[A-Z][A-Za-z]{{1,19}}|(?:{_NOT_IN_A_NAME}[\u4e00-\u9fff]){{1,4}}?)"
"""A given name in a list: no word of a clause in it (我有两个女儿，都很可爱 named 都很可爱)."""
_ZH_NAMES = (
    rf"(?P<v>{_ZH_GIVEN}(?:(?:、|，|,|和|跟|与){_ZH_GIVEN})+)(?P<several>)(?=[。！!；;，,]|$)"
)
"""Several names in a list (小明和小亮, Tom和Jerry): a slot each."""
_CJK_NAME = r"(?P<v>[\u4e00-\u9fff]{2,4}?|[A-Za-z][A-Za-z ]{0,30}?)(?=[\s，。,.!！？?；;、]|$)"
_JA_VALUE = rf"(?P<v>{_LATIN_PHRASE}|[^\s、。,.!！？?はがをにで「」]{{1,16}})"
ROLE_ZH = (
    r"(?P<v>[^\s，。,.；;]{0,8}?(?:工程师|开发者|开发|程序员|设计师|经理|学生|老师|医生|律师|"
    r"投资者|研究员|分析师|创业者|产品经理|架构师|运维|护士|会计|厨师|司机|记者|作家|教授|"
    r"销售|警察|公务员|主管|总监|翻译|药剂师|运营))"
)
"""A job named in Chinese (工程师, 产品经理 …), with what qualifies it."""
_ROLE_JA = (
    r"(?P<v>[^\s、。はが]{0,8}?(?:エンジニア|開発者|デザイナー|学生|教師|医者|会社員|研究者|"
    r"マネージャー|弁護士|投資家|看護師|医師|薬剤師|公務員|プログラマー|教員|保育士|会計士|"
    r"営業|シェフ))"
)


ZH_PATTERNS: list[SlotPattern] = [
    *_p("zh", "name", rf"(?:我叫|我的名字(?:是|叫)|本人(?:叫)?){_CJK_NAME}"),
    *_p(
        "zh",
        "home",
        rf"(?:{_WHO_ZH}|我|^|[，,；;]){_ZH_WHEN}(?:现在|目前|已经|刚|也|还)?(?:住在|生活在|定居在|"
        rf"搬到了?|搬家到了?|搬去了?){_CJK_VALUE}{_CJK_END}",
    ),
    *_p(
        "zh",
        "workplace",
        rf"(?:{_WHO_ZH}|我|^|[，,；;])(?:现在|目前|也|还)?在{_CJK_VALUE}(?:工作|上班)",
        rf"(?:{_WHO_ZH}|我|^|[，,；;]){_ZH_WHEN}(?:已经|刚)?(?:跳槽|转职|换工作)(?:到|去)了?"
        rf"{_CJK_VALUE}"
        rf"{_CJK_END}",
        rf"(?:我|^|[，,；;])(?:现在|目前)?(?:就职于|任职于){_CJK_VALUE}{_CJK_END}",
        # the employer joined after the one left (我不在腾讯工作了，现在加入了阿里巴巴); not "现在在
        # X", which is as often a city (现在在北京) or a doing (现在在准备考研)
        rf"(?:离职|辞职|不在[^，。,.；;]{{1,16}}(?:工作|上班))了?[，,；;]\s*(?:现在|目前|如今|后来)?"
        rf"(?:加入了?|入职了?){_CJK_VALUE}{_CJK_END}",
        rf"(?:我|^|[，,；;])(?:现在|目前|也|还)?在{_ZH_GENERIC_PLACE}{_CJK_VALUE}"
        rf"(?=(?:做|当|担任)(?:一名|一个)?{ROLE_ZH.replace('(?P<v>', '(?:')})",
    ),
    *_p(
        "zh",
        "left:workplace",
        rf"(?:我|^|[，,；;]){_ZH_WHEN}(?:已经|刚)?从{_CJK_VALUE}(?:离职|辞职)",
        rf"(?:我|^|[，,；;])(?:已经|现在)?不在{_CJK_VALUE}(?:工作|上班)了",
    ),
    *_p(
        "zh",
        "role",
        rf"(?:{_WHO_ZH}|我|[，,；;])(?:现在|目前|也|还)?是(?:一名|一个|一位|个)?{ROLE_ZH}",
        rf"(?:{_WHO_ZH}|我|^|[，,；;]){_ZH_WHEN}(?:已经|刚)?转行(?:做|当|成为)了?(?:一名|一个)?"
        rf"{ROLE_ZH}",
        rf"(?:我|^|[，,；;])(?:现在|目前|也|还)?在{_ZH_GENERIC_PLACE}[^\s，。,.；;]{{1,16}}?"
        rf"(?:做|当|担任)(?:一名|一个)?{ROLE_ZH}",
        # 做 is a job ("我做后端开发"), 做了/做过 something done ("我做了一个蛋糕")
        rf"(?:我|^|[，,；;])(?:现在|目前)?(?:做|从事)(?![了过着])(?!什么){_CJK_VALUE}(?:工作)?{_CJK_END}",
        rf"我的(?:工作|职业)是{_CJK_VALUE}{_CJK_END}",
    ),
    *_p(
        "zh",
        "answer_language",
        rf"(?:请|麻烦)?(?:你)?(?:用|使用)(?P<v>{LANGUAGE_NAMES})(?:来)?(?:回答|回复|交流|跟我说|和我说|对话|回应)",
        rf"(?:回答|回复|交流)(?:请|都|时)?(?:用|使用)(?P<v>{LANGUAGE_NAMES})",
        rf"(?:以后|今后|之后)(?:请)?(?:都)?(?:用|使用)(?P<v>{LANGUAGE_NAMES})",
    ),
    *_p(
        "zh",
        "tool",
        rf"我(?:现在|目前)?(?:用|使用|改用|换成了?|换到了?)(?P<v>(?i:{TOOL_NAMES}))",
        rf"从\s*[\w .-]{{1,40}}?\s*(?:换到|换成|转到|改用)了?\s*(?P<v>(?i:{TOOL_NAMES}))",
    ),
    *_p(
        "zh",
        "person:{rel}",
        rf"我(?:的)?(?P<rel>{_REL_ZH})(?:的名字)?(?:叫|名叫|是){_CJK_NAME}",
        rf"(?:我|[，,；;](?P<me>))(?:还|也)?有(?:一个|一位|个|位)(?P<rel>{_REL_ZH})[，,]?(?:叫|名叫){_CJK_NAME}",
        rf"我(?:还|也)?有(?:两|三|四|2|3|4)个{_ZH_SIBLINGS}[，,：:]?(?:分别)?(?:叫|名叫|是)?"
        rf"{_ZH_NAMES}",
    ),
    *_p(
        "zh",
        "pet:{rel}",
        rf"我(?:的|家)?(?:的)?(?P<rel>{_PET_ZH})(?:的名字)?(?:叫|名叫){_CJK_NAME}",
        rf"我(?:还|也)?(?:养了|养|有)(?:一只|一条|只|条)?(?P<rel>{_PET_ZH})[，,]?(?:它)?(?:叫|名叫)"
        rf"{_CJK_NAME}",
        rf"我(?:还|也)?(?:有|养了?)(?:两|三|四|2|3|4)(?:只|条)(?P<rel>{_PET_ZH})[，,：:]?(?:分别)?"
        rf"(?:叫|名叫)?{_ZH_NAMES}",
    ),
    *_p(
        "zh",
        "pet:{rel}",
        rf"我(?:有|养了?)(?:一只|一条|只|条)叫(?P<v>[\u4e00-\u9fffA-Za-z]{{1,6}})的(?P<rel>{_PET_ZH})",
    ),
    *_p("zh", "allergy", rf"(?:{_WHO_ZH}|我)(?:对)(?P<v>[^\s，。,.；;]{{1,10}}?)过敏"),
    *_p("zh", "diet", r"我(?:是|现在是)?(?P<v>素食者|素食主义者|纯素食者|吃素)"),
    *_p("zh", "avoids", r"我(?:不吃|不能吃|吃不了|从不吃)(?P<v>[^\s，。,.；;了吗呢啊]{1,6})"),
    *_p("zh", "units", r"(?:用|使用|采用)(?P<v>公制|英制)(?:单位)?"),
    *_p("zh", "format:temperature", r"(?:用|使用)(?P<v>摄氏度?|华氏度?)"),
    *_p("zh", "format:time", r"(?:用|使用)(?P<v>24小时制|12小时制)"),
    *_p(
        "zh",
        "answer_style",
        r"(?:用|使用)(?P<v>繁体(?:中文|字)?|繁體(?:中文|字)?|简体(?:中文|字)?|敬语|正式的?语气|"
        r"口语化?的?语气)(?:来)?(?:回答|回复|交流|写|跟我说|和我说)",
    ),
    *_p(
        "zh",
        "birthday:{rel}",
        rf"我(?:的)?(?:(?P<rel>{_REL_ZH})的)?生日是(?P<v>\d{{1,2}}月\d{{1,2}}[日号])",
    ),
]

JA_PATTERNS: list[SlotPattern] = [
    *_p(
        "ja",
        "name",
        rf"(?:私|僕|俺)の名前は{_JA_VALUE}(?:です|だ)",
        r"^(?:私|僕|俺)は(?P<v>[\u4e00-\u9fff\u30a0-\u30ff]{1,6})(?:です[。.!！]?$|(?:です|で)、)",
        r"(?P<v>[\u4e00-\u9fff\u30a0-\u30ff]{1,6})と申します",
    ),
    *_p(
        "ja",
        "home",
        rf"{_JA_VALUE}に(?:住んで(?:い|お)ます|住んでいて|住んでいる|住んでる|引っ越しました|"
        rf"引っ越した|引っ越して|引っ越すことになりました)",
        r"(?:^|[はも、])(?P<v>[\u4e00-\u9fff\u30a0-\u30ff]{1,8})在住(?=です|の|で|[。、]|$)",
    ),
    *_p(
        "ja",
        "workplace",
        rf"{_JA_VALUE}(?:で働いて(?:い|お)ます|で働いていて|で働いている|に勤めて(?:い|お)ます|"
        rf"に勤めていて|に転職しました|に転職して|に入社しました)",
    ),
    *_p(
        "ja",
        "left:workplace",
        # done, not wished or supposed: 辞めたい, 辞めたら, 辞めていません (found re-testing)
        rf"{_JA_VALUE}を(?:辞めました|辞めた|退職しました|退職した)(?![いらりろく])(?!か(?!ら))",
    ),
    *_p(
        "ja",
        "role",
        rf"(?:私|僕|俺|{subjects.JA_RELATIONS}|[\u4e00-\u9fff\u30a0-\u30ff]{{1,6}}さん)(?:は|も)"
        rf"{_ROLE_JA}です",
        rf"(?:^|[、はも]){_ROLE_JA}として(?:働いて|勤務して|勤めて)",
        rf"(?:^|[、はも]){_ROLE_JA}(?:をしています|をしていて|に転職しました)",
    ),
    *_p(
        "ja",
        "pet:{rel}",
        rf"(?P<rel>{_PET_JA})の(?P<v>[\u30a0-\u30ff\u3040-\u309f\u4e00-\u9fff]{{1,6}}?)を飼って",
    ),
    *_p(
        "ja",
        "allergy",
        r"(?:^|[はもが、])(?P<v>[^\s、。はがをにで]{1,10}?)(?:の)?アレルギー(?:です|があります|を持って|持ち)",
    ),
    *_p("ja", "diet", r"(?P<v>ベジタリアン|ヴィーガン|菜食主義者)(?:です|なので|になりました)"),
    *_p("ja", "avoids", r"(?:^|[、])(?P<v>[^\s、。はがを]{1,8})(?:が|は)食べられません"),
    *_p("ja", "units", r"(?P<v>メートル法|ヤード・ポンド法)で"),
    *_p(
        "ja",
        "answer_style",
        r"(?P<v>敬語|タメ口|丁寧語|です・ます調|繁体字|簡体字)で(?:答えて|話して|回答して|書いて|お願い|返事して)",
    ),
    *_p(
        "ja",
        "answer_language",
        rf"(?P<v>{LANGUAGE_NAMES})で(?:答えて|回答して|返事して|話して|書いて|返答して)",
    ),
    *_p(
        "ja",
        "tool",
        rf"(?P<v>(?i:{TOOL_NAMES}))を使って(?:い|お)ます",
        rf"[\w .-]{{1,40}}?から(?P<v>(?i:{TOOL_NAMES}))に(?:乗り換え|変え|切り替え)",
    ),
    *_p(
        "ja",
        "person:{rel}",
        rf"(?:私の)?(?P<rel>{_REL_JA})の名前は{_JA_VALUE}(?:です|だ)",
        rf"(?:私の)?(?P<rel>{_REL_JA})は{_JA_VALUE}という名前",
        # a correction: 息子の名前はケンではなくリョウです set no son
        rf"(?:私の)?(?P<rel>{_REL_JA})の名前は[^\s、。]{{1,16}}?(?:ではなく|じゃなくて)、?{_JA_VALUE}"
        rf"(?:です|だ)",
    ),
    *_p(
        "ja",
        "pet:{rel}",
        rf"(?P<rel>{_PET_JA})の名前は{_JA_VALUE}(?:です|だ)",
        rf"(?P<rel>{_PET_JA})を飼っていて、?名前は{_JA_VALUE}",
    ),
]
