"""Synthetic memories and queries for benchmarks: English, Chinese and a little Japanese.

Sentences are templates whose `{slots}` are filled from word lists. Words are drawn with
Zipf-like weights (a few are everywhere, most are rare) and project code names are made up from
syllables, so the full-text index sees a long-tailed vocabulary rather than a handful of
repeated words. `{3..42}` is a number in that range. Everything comes from one
`random.Random(seed)`: the same seed gives the same corpus.
"""

import itertools
import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from cortex_mcp.search.tokenize import normalised_content

WORDS: dict[str, str] = {  # comma-separated when a value has spaces, else space-separated
    "en_name": (
        "Anna Ben Carla David Elena Farid Grace Hiro Ines Jonas Kavya Liam Maya Noah Olga Pedro "
        "Quinn Rosa Sam Tara Umar Vera Wei Xenia Yusuf Zoe Amir Bianca Chen Dmitri Esme Felix "
        "Gita Hannah Ivan Julia Kenji Lena Marco Nadia Oscar Priya Rafael Sofia Tomas Uma Victor "
        "Wanda Yara Zain Alice Bruno Clara Diego Emma Frank Greta Hugo Iris Jack Kira Leo Mila"
    ),
    "en_relation": (
        "sister brother mother father daughter son wife husband partner friend manager "
        "colleague neighbour cousin mentor"
    ),
    "en_drink": (
        "coffee espresso tea matcha oolong kombucha cocoa lemonade beer wine water smoothies "
        "cappuccino latte chai"
    ),
    "en_food": (
        "peanuts shellfish gluten dairy eggs soy sesame mushrooms cilantro olives sushi ramen "
        "curry pizza tofu lentils avocado strawberries walnuts"
    ),
    "en_when": (
        "in the morning,after lunch,late at night,before meetings,on weekends,while coding,"
        "at breakfast,in the afternoon"
    ),
    "en_meal": "breakfast,lunch,dinner,brunch,team lunches,business dinners",
    "en_city": (
        "Berlin Lisbon Tokyo Osaka Shanghai Beijing Shenzhen Toronto Austin Seattle Nairobi Lagos "
        "Madrid Paris Lyon Milan Prague Vienna Warsaw Oslo Stockholm Helsinki Dublin Edinburgh "
        "Melbourne Sydney Auckland Singapore Seoul Taipei Bangalore Mumbai Dubai Cairo Denver "
        "Boston Chicago Montreal Vancouver Zurich Geneva Munich Hamburg Kyoto Hangzhou Chengdu"
    ),
    "en_job": (
        "engineer designer teacher nurse architect researcher accountant lawyer chef pilot "
        "editor analyst pharmacist photographer translator"
    ),
    "tech": (
        "PostgreSQL SQLite Redis Kafka RabbitMQ Elasticsearch ClickHouse DuckDB MongoDB Cassandra "
        "Django FastAPI Flask Rails Spring Express Next.js React Vue Svelte Angular Kubernetes "
        "Docker Terraform Ansible Nginx Caddy GraphQL gRPC Prometheus Grafana Sentry Celery "
        "Airflow Spark Pandas Polars PyTorch TensorFlow Rust Go TypeScript Kotlin Swift Elixir "
        "Zig Deno Bun S3 DynamoDB BigQuery Snowflake Vercel Netlify Cloudflare Supabase Firebase"
    ),
    "en_component": (
        "billing service,search index,auth gateway,payment worker,notification queue,admin panel,"
        "mobile app,data pipeline,reporting job,API layer,cache,scheduler,frontend,ingest worker,"
        "recommendation model,export tool,audit log,feature flags,image resizer,webhook relay"
    ),
    "en_platform": "AWS GCP Azure Fly.io Hetzner DigitalOcean bare-metal Render Railway",
    "en_topic": (
        "quarterly planning,hiring,performance reviews,the roadmap,onboarding,security audits,"
        "incident response,pricing,the migration,accessibility,observability,cost cutting,"
        "vendor contracts,the offsite,documentation,code review,release process,on-call rotation,"
        "data retention,user research,marketing launch,tax filing,the kitchen renovation,"
        "wedding plans,the garden,language lessons,marathon training,the book club"
    ),
    "en_event": (
        "release,demo,board meeting,launch,audit,conference,holiday,deadline,trip,sprint review"
    ),
    "en_verb": (
        "refactor,document,benchmark,review,upgrade,test,rewrite,profile,deprecate,migrate"
    ),
    "en_place": "the river,the park,the harbour,the old town,the lake,the stadium",
    "en_weekday": "Monday Tuesday Wednesday Thursday Friday Saturday Sunday",
    "en_month": (
        "January February March April May June July August September October November December"
    ),
    "en_editor": "VS Code,Neovim,Emacs,PyCharm,Zed,Sublime Text,Helix,IntelliJ",
    "en_theme": "dark,light,solarized,gruvbox,nord,dracula,monokai",
    "en_font": "JetBrains Mono,Fira Code,Iosevka,Menlo,Cascadia Code,Source Code Pro",
    "en_genre": "science fiction,history,biography,poetry,economics,philosophy,crime",
    "en_attr": "email,phone number,title,team,home city,start date,shoe size",
    "en_purchase": "a new laptop,the bike,a camera,the sofa,a standing desk,flights",
    "en_artifact": "agenda,design doc,metrics,slides,draft,budget sheet",
    "currency": "EUR USD GBP JPY CNY CHF",
    "zh_relation": "姐姐 哥哥 妈妈 爸爸 女儿 儿子 妻子 丈夫 同事 朋友 经理 邻居 表妹 导师",
    "zh_drink": "咖啡 绿茶 红茶 乌龙茶 普洱茶 豆浆 牛奶 果汁 啤酒 红酒 奶茶 柠檬水 热水",
    "zh_food": "花生 海鲜 虾 牛奶 鸡蛋 芝麻 香菜 辣椒 蘑菇 羊肉 榴莲 芒果 豆腐 火锅 饺子",
    "zh_time": "早上 中午 下午 晚上 周末 开会前 写代码时 睡前",
    "zh_meal": "早饭 午饭 晚饭 聚餐 宵夜",
    "zh_city": (
        "北京 上海 深圳 广州 杭州 成都 南京 武汉 西安 苏州 重庆 天津 厦门 青岛 大连 长沙 昆明"
    ),
    "zh_job": "工程师 设计师 老师 医生 护士 会计 律师 厨师 研究员 产品经理 记者 翻译",
    "zh_company": "腾讯 阿里巴巴 字节跳动 百度 华为 小米 美团 京东 网易 一家初创公司 银行",
    "zh_component": (
        "支付服务 搜索索引 登录网关 消息队列 管理后台 移动端 数据管道 报表任务 缓存层 调度器 "
        "前端 推荐模型"
    ),
    "zh_platform": "阿里云 腾讯云 华为云 AWS 自建机房 Kubernetes集群",
    "zh_topic": (
        "季度规划 招聘 绩效评估 产品路线图 新人培训 安全审计 故障复盘 定价 数据迁移 成本控制 "
        "发布流程 值班安排 用户调研 装修 婚礼 马拉松训练 读书会 报税"
    ),
    "zh_event": "发布 演示 董事会 上线 审计 年会 春节 截止日期 出差 迭代评审",
    "zh_action": "重构 写文档 压测 评审 升级 测试 重写 优化 下线 迁移",
    "zh_place": "江边 公园 湖边 体育场 校园 老城区 海边",
    "zh_weekday": "一 二 三 四 五 六 日",
    "zh_genre": "科幻 历史 传记 诗歌 经济学 哲学 推理 武侠",
    "zh_attr": "邮箱 手机号 职位 团队 家乡 入职日期",
    "zh_purchase": "新电脑 自行车 相机 沙发 升降桌 机票 汽车 手机",
    "ja_name": "田中 佐藤 鈴木 高橋 伊藤 渡辺 山本 中村 小林 加藤",
    "ja_drink": "コーヒー 緑茶 抹茶 紅茶 ほうじ茶 ビール 日本酒 牛乳",
    "ja_city": "東京 大阪 京都 横浜 名古屋 福岡 札幌 神戸 奈良 仙台",
    "ja_job": "エンジニア デザイナー 教師 看護師 研究者 編集者",
    "ja_component": "決済サービス 検索インデックス 認証ゲートウェイ 管理画面 キャッシュ",
    "ja_topic": "採用 予算 ロードマップ 障害対応 リリース計画 引っ越し 旅行 健康診断",
    "ja_time": "朝 昼休み 夕方 夜 週末",
}
ZH_SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何林罗高"
ZH_GIVEN = "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉兰"
SYLLABLES = "ka ri to mo ra ven sel dor ax il un bra qu ze lo mi tar os el fen gal nor vik"
CODE_NAMES = 3000
"""Project code names: the rare terms. Most appear in a few dozen memories at 100,000."""


@dataclass(frozen=True)
class Language:
    """The templates of one language and its share of the corpus."""

    name: str
    share: float
    memories: Sequence[str]
    queries: Sequence[str]


LANGUAGES = (
    Language(
        "en",
        0.58,
        [
            "{en_name} prefers {en_drink} {en_when}, never {en_drink}.",
            "The user is allergic to {en_food} and avoids {en_food} at {en_meal}.",
            "Project {code} uses {tech} for the {en_component}; it is deployed on {en_platform}.",
            "On {en_date} we decided to move the {en_component} of {code} from {tech} to {tech}.",
            "{en_name} lives in {en_city} and works at {company}; job title: {en_job}.",
            "The user's {en_relation} {en_name} has a birthday on {en_month} {1..28}.",
            "The sync with {en_name} about {en_topic} is every {en_weekday} at {8..18}:{0..5}0.",
            "TODO: {en_verb} the {en_component} of {code} before the {en_event} on {en_date}.",
            "The user runs {3..42} km every {en_weekday} along {en_place} in {en_city}.",
            "Prefers {en_editor} with the {en_theme} theme and {en_font} at size {11..18}.",
            "The {en_component} of {code} listens on port {1024..65000} and talks to {tech}.",
            "The user reads {en_genre} books; the last one was about {en_topic}.",
            "Correction: {en_name}'s {en_attr} changed in {en_month} {2019..2026}.",
            "Talks about {en_topic} go better when {en_name} gets the {en_artifact} a day early.",
            "The user's budget for {en_purchase} is {100..20000} {currency}.",
            "{en_name} moved the {code} team from {tech} to {tech} after the {en_event}.",
        ],
        [
            "what does {en_name} like to drink",
            "{code} {en_component}",
            "which database does project {code} use",
            "food allergies {en_food}",
            "where does {en_name} live",
            "{en_topic}",
            "birthday of my {en_relation}",
            "{tech} migration decision",
            "running route in {en_city}",
            "editor theme and font preferences",
            "budget for {en_purchase}",
            "meeting with {en_name} on {en_weekday}",
        ],
    ),
    Language(
        "zh",
        0.35,
        [
            "{zh_name}喜欢在{zh_time}喝{zh_drink}，不喝{zh_drink}。",
            "用户对{zh_food}过敏，吃{zh_meal}时也不吃{zh_food}。",
            "项目{code}的{zh_component}使用{tech}，部署在{zh_platform}上。",
            "{zh_date}决定把{code}的{zh_component}从{tech}迁移到{tech}。",
            "{zh_name}住在{zh_city}，在{zh_company}做{zh_job}。",
            "用户的{zh_relation}{zh_name}的生日是{1..12}月{1..28}日。",
            "每周{zh_weekday}{8..18}点和{zh_name}开会讨论{zh_topic}。",
            "待办：{zh_event}之前要{zh_action}{code}的{zh_component}。",
            "用户每周{zh_weekday}早上在{zh_city}的{zh_place}跑{3..42}公里。",
            "用户最近在读{zh_genre}书，上一本讲的是{zh_topic}。",
            "更正：{zh_name}的{zh_attr}在{2019..2026}年改过，旧的不要再用。",
            "用户买{zh_purchase}的预算是{100..20000}元。",
            "{code}的{zh_component}监听{1024..65000}端口，依赖{tech}。",
        ],
        [
            "{zh_name}喜欢喝什么",
            "{code}用什么技术",
            "{zh_name}住在哪里",
            "{zh_topic}",
            "用户对什么过敏 {zh_food}",
            "{zh_relation}的生日",
            "在{zh_city}跑步",
            "{zh_component}迁移",
            "{zh_purchase}预算",
            "{code} 的 {tech}",
        ],
    ),
    Language(
        "ja",
        0.07,
        [
            "{ja_name}さんは{ja_time}に{ja_drink}を飲むのが好きです。",
            "プロジェクト{code}の{ja_component}は{tech}を使っています。",
            "{ja_name}さんは{ja_city}に住んでいて、{ja_job}として働いています。",
            "{1..12}月{1..28}日に{ja_name}さんと{ja_topic}について打ち合わせがあります。",
        ],
        [
            "{ja_name}さんの好きな飲み物",
            "{ja_city}に住んでいる人",
            "{ja_topic}の打ち合わせ",
        ],
    ),
)
_SLOT = re.compile(r"\{(\w+)\}|\{(\d+)\.\.(\d+)\}")


class Zipf:
    """Picks from a word list with weight 1/rank^exponent: the head common, the tail rare."""

    def __init__(self, rng: random.Random, words: Sequence[str], exponent: float = 1.0) -> None:
        self.rng = rng
        self.words = list(words)
        rng.shuffle(self.words)  # which words are frequent is part of the seed
        ranks = range(1, len(self.words) + 1)
        self.cum_weights = list(itertools.accumulate(1 / r**exponent for r in ranks))

    def common(self) -> str:
        return self.rng.choices(self.words, cum_weights=self.cum_weights)[0]

    def any(self) -> str:
        return self.rng.choice(self.words)


def split_words(text: str) -> list[str]:
    return text.split(",") if "," in text else text.split()


def made_up_names(rng: random.Random, count: int) -> list[str]:
    """Names such as Velkaro or Norvik, from syllables: the long tail of the vocabulary."""
    names: set[str] = set()
    while len(names) < count:
        parts = rng.choices(SYLLABLES.split(), k=rng.choice((2, 3, 3, 4)))
        names.add("".join(parts).capitalize())
    return sorted(names)


def chinese_names(rng: random.Random, count: int) -> list[str]:
    """Surname plus one or two given-name characters."""
    names: set[str] = set()
    while len(names) < count:
        names.add(rng.choice(ZH_SURNAMES) + "".join(rng.choices(ZH_GIVEN, k=rng.choice((1, 2)))))
    return sorted(names)


class Corpus:
    """A seeded stream of distinct memory sentences, and of recall queries."""

    def __init__(self, seed: int) -> None:
        self.rng = rng = random.Random(seed)
        words = {slot: split_words(text) for slot, text in WORDS.items()}
        words["code"] = made_up_names(rng, CODE_NAMES)
        words["company"] = [f"{name} Labs" for name in made_up_names(rng, 400)]
        words["zh_name"] = chinese_names(rng, 60)
        self.samplers = {slot: Zipf(rng, values) for slot, values in words.items()}
        self.samplers["code"] = Zipf(rng, words["code"], exponent=0.8)
        self.shares = [language.share for language in LANGUAGES]
        self.seen: set[str] = set()

    def fill(self, template: str, query: bool = False) -> str:
        """The template with every slot drawn on its own; queries reach the tail half the time."""

        def draw(slot: re.Match[str]) -> str:
            name, low, high = slot.groups()
            if name is None:
                return str(self.rng.randint(int(low), int(high)))
            if name == "en_date":
                return f"{draw_word('en_month')} {self.rng.randint(1, 28)}, {self.year()}"
            if name == "zh_date":
                return f"{self.year()}年{self.rng.randint(1, 12)}月{self.rng.randint(1, 28)}日"
            return draw_word(name)

        def draw_word(name: str) -> str:
            sampler = self.samplers[name]
            return sampler.any() if query and self.rng.random() < 0.5 else sampler.common()

        return _SLOT.sub(draw, template)

    def year(self) -> int:
        return self.rng.randint(2019, 2026)

    def language(self) -> Language:
        return self.rng.choices(LANGUAGES, weights=self.shares)[0]

    def sentence(self) -> tuple[str, str]:
        """(language, sentence); one in five gets a second sentence, as real notes do."""
        language = self.language()
        text = self.fill(self.rng.choice(language.memories))
        if self.rng.random() < 0.2:
            text += " " + self.fill(self.rng.choice(language.memories))
        return language.name, text

    def memories(self) -> Iterator[tuple[str, str]]:
        """Endless (language, content) pairs, none equal to an earlier one once normalised."""
        while True:
            language, text = self.sentence()
            key = normalised_content(text)
            if key not in self.seen:
                self.seen.add(key)
                yield language, text

    def query(self) -> tuple[str, str]:
        """(language, query) in the shapes people ask: a name, a topic, a question."""
        language = self.language()
        return language.name, self.fill(self.rng.choice(language.queries), query=True)
